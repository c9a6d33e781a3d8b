"""Shell commands read as file reads: ``parser`` splits a command line (POSIX and cmd
quoting), ``reads`` evaluates it into the files and line ranges it reads, with ``programs``
(sed, head, awk, ...), ``powershell`` and its ``cmdlets``."""
