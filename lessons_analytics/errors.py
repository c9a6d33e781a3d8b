"""Domain exceptions. The library raises these; only ``cli.py`` maps them to exit codes."""

from __future__ import annotations


class LessonsAnalyticsError(Exception):
    """Base class of every error the CLI reports as a user or data error (exit 1)."""


class SqlFileNotFound(LessonsAnalyticsError):
    """A named SQL model or query does not exist."""


class NoWarehouse(LessonsAnalyticsError):
    """The warehouse file does not exist yet: run ``ingest`` first."""


class StaleWarehouse(LessonsAnalyticsError):
    """The warehouse was built by other ``sql/`` models (another version): ingest rebuilds it."""


class BaseNotFound(LessonsAnalyticsError):
    """A path given as a lesson base holds no ``LESSONS/`` folder."""


class ConfigError(LessonsAnalyticsError):
    """The TOML configuration file is unreadable or holds a wrong value."""


class LockBusy(LessonsAnalyticsError):
    """Another run holds the warehouse lock."""


class SourceNotFound(LessonsAnalyticsError):
    """A transcript path given to ingest does not exist."""


class InvalidValue(LessonsAnalyticsError):
    """A value given on the command line that the library cannot use (a regex that does not
    compile, a session id prefix that matches nothing): exit 2, like a usage error."""


class SessionNotFound(LessonsAnalyticsError):
    """A session id (or prefix) that names no session of the warehouse, or several."""
