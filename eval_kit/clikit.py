"""CLI plumbing shared by every command module: the click group that maps errors to exit codes.

Kept apart from `eval_kit.cli` (which registers every command) so that a command module can use the
group class without importing every other command.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Iterator

import click

from eval_kit.errors import BadInput, short

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT = 0, 1, 2
# OS errors a user fixes (space, permissions, paths): one line and exit 2 instead of an internal error
USER_FIXABLE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM,
                                 errno.ENAMETOOLONG, errno.ELOOP, errno.ENOTDIR, errno.EISDIR, errno.ENOENT,
                                 errno.EEXIST, errno.EMFILE})
_ERRNO_FIX = {errno.ENOSPC: "free some disk space and run the same command again: finished work is kept",
              errno.EDQUOT: "free some of your disk quota and run the same command again",
              errno.EROFS: "write to a writable folder", errno.EACCES: "check the permissions",
              errno.EPERM: "check the permissions"}


def _silence_stdout() -> None:
    """Point stdout at /dev/null so Python's exit-time flush does not raise again on the closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


@contextlib.contextmanager
def second_interrupt_exits(code: int = 130) -> Iterator[None]:
    """Inside the block, Ctrl-C once: KeyboardInterrupt as usual (the command stops its work, keeps what it
    finished, releases its folder lock and exits 130). Ctrl-C again while it does so: exit at once, quietly,
    without a traceback (the raw log is flushed line by line; the kernel drops the folder lock when the process
    ends). The previous handler is restored after the block."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    interrupted = False

    def on_interrupt(signum, frame):
        nonlocal interrupted
        if interrupted:
            os.write(2, b"interrupted again: exiting now (finished answers are in the raw log)\n")
            os._exit(code)
        interrupted = True
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class HazardkitGroup(click.Group):
    """A click group that turns BadInput into `error: ...` + exit 2, and crashes into one line + exit 1.

    A subcommand named with `-` is found under its `_` spelling too (`score bd_hazardvlm` = `score
    bd-hazardvlm`): benchmark names are accepted in both spellings wherever a name is taken."""

    def get_command(self, ctx: click.Context, cmd_name: str):
        command = self._get_command(ctx, cmd_name)
        if command is None and "_" in cmd_name:
            command = self._get_command(ctx, cmd_name.replace("_", "-"))
        return command

    def _get_command(self, ctx: click.Context, cmd_name: str):
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except BadInput as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(EXIT_BAD_INPUT)
        except click.UsageError as exc:  # one line, not click's usage block
            name = exc.ctx.command_path if exc.ctx is not None else ctx.command_path
            click.echo(f"error: {short(exc.format_message(), 400)} (see `{name} --help`)", err=True)
            ctx.exit(EXIT_BAD_INPUT)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except BrokenPipeError:  # `hazardkit ... | head -1`: the reader has gone; stop quietly
            _silence_stdout()
            ctx.exit(EXIT_OK)
        except OSError as exc:
            if exc.errno not in USER_FIXABLE_ERRNOS or os.environ.get("HAZARDKIT_DEBUG"):
                raise
            where = f"{short(str(exc.filename), 160)}: " if exc.filename else ""
            click.echo(f"error: {where}{exc.strerror} ({_ERRNO_FIX.get(exc.errno, 'check the path')})", err=True)
            ctx.exit(EXIT_BAD_INPUT)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(130)
        except Exception as exc:
            if os.environ.get("HAZARDKIT_DEBUG"):
                raise
            click.echo(
                f"internal error: {type(exc).__name__}: {exc} (set HAZARDKIT_DEBUG=1 for a traceback)",
                err=True,
            )
            ctx.exit(EXIT_INTERNAL)


class LazyGroup(HazardkitGroup):
    """A group whose subcommands are `"module:attribute"` references, imported only when one is used.

    `lazy` is a callable returning {name: reference}, evaluated when the group is listed or a name looked
    up, so registry-driven subcommands (one per benchmark) appear without importing any of them up front.
    Commands added with `add_command` take precedence.
    """

    def __init__(self, *args, lazy=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._sources = [lazy] if lazy is not None else []

    def add_lazy(self, source) -> None:
        """Add another {name: reference} source (builder adds the build commands to the root group)."""
        self._sources.append(source)

    def _lazy(self) -> dict[str, str]:
        refs: dict[str, str] = {}
        for source in self._sources:
            refs.update(source())
        return refs

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self._lazy()})

    def _get_command(self, ctx: click.Context, cmd_name: str):
        command = super()._get_command(ctx, cmd_name)
        if command is not None:
            return command
        ref = self._lazy().get(cmd_name)
        if ref is None:
            return None
        from eval_kit.registry import resolve

        command = resolve(ref)
        self.add_command(command, cmd_name)
        return command
