"""Calling the `hazardkit` command group in process, as the tests do everywhere."""

from click.testing import CliRunner

from builder.cli import cli


def invoke(*args: object) -> tuple[int, str]:
    """(exit code, output) of `hazardkit ARGS...`."""
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.output


def hk(*args: object) -> str:
    """The output of `hazardkit ARGS...`, which must succeed."""
    code, output = invoke(*args)
    assert code == 0, output
    return output
