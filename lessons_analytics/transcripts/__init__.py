"""The two runtimes' transcripts as rows: ``claude`` and ``codex`` parse a file's lines,
``tool_results`` summarises what a tool returned, ``file_reads`` tells which calls read a file
(the Read tool, and shell commands through ``lessons_analytics.shell``)."""
