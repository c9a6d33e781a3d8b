from click.testing import CliRunner

from lessons_analytics.cli import cli


def test_help_lists_the_group() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    assert "lessons given to AI coding agents" in result.output


def test_unknown_command_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["no-such-command"])
    assert result.exit_code == 2
