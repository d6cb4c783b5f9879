"""User-facing errors.

Anything a user can cause (a bad file, an unknown name, a missing mirror) raises :class:`MlbenchError`
with a one-line message that names the file, line or value.  The CLI turns it into
``mlbench: error: <message>`` on stderr and exit status 2, never a traceback.
"""


class MlbenchError(Exception):
    """An error caused by the user's input or environment, reported in one line (exit status 2)."""


class DataError(MlbenchError):
    """A dataset file is missing, corrupt, malformed or fails its checksum."""


class ConfigError(MlbenchError):
    """A protocol, option or name is invalid."""


class WriteError(ConfigError):
    """A file cannot be written (a full disk, a read-only file system, no permission): the message
    names the file, the reason and what to do next (see :mod:`mlbench.fileio`)."""
