"""Whether another local user could have written a directory: seat markers and the state are
trusted only where nobody but you (or root) can write.

A directory is another user's to write when someone else owns it, when anyone may write it, or when
a group other than your own private one may. Debian and Ubuntu give each user a group of their own
(a user-private group) and a 002 umask, so most project directories are group-writable by that
group alone: those are yours. A group-writable directory counts as yours only when its group is
your primary group and lists no other member. hail's own state is made 0700 and is never
group-writable, so any group or other write bit there is refused.

Filesystem only, on the hook path: `grp` and `pwd` are loaded only for a group-writable directory.
"""

from __future__ import annotations

import os


def _trusted_owner(uid: int) -> bool:
    return uid in (os.geteuid(), 0)


def _private_group(gid: int) -> bool:
    """Your primary group with no other member: a user-private group."""
    if gid != os.getegid():
        return False
    import grp

    try:
        members = grp.getgrgid(gid).gr_mem
    except KeyError:
        return True  # no entry: nobody else is listed in it
    if not members:
        return True
    import pwd

    try:
        me = pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return False
    return all(m == me for m in members)


def marker_distrust(directory: str) -> str | None:
    """Why a seat marker in `directory` may be another user's, or None when it is yours."""
    try:
        st = os.stat(directory)
    except OSError as e:
        return f"it cannot be checked ({e.strerror or e})"
    if not _trusted_owner(st.st_uid):
        return f"the directory belongs to uid {st.st_uid}"
    if st.st_mode & 0o002:
        return "anyone may write the directory"
    if st.st_mode & 0o020 and not _private_group(st.st_gid):
        return f"group {st.st_gid}, which others share, may write the directory"
    return None


def state_distrust(path: str) -> str | None:
    """Why a state directory may be another user's, or None (also when it does not exist yet:
    hail then makes it, 0700)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        return f"{path} cannot be checked ({e.strerror or e})"
    if not _trusted_owner(st.st_uid):
        return f"{path} belongs to uid {st.st_uid}, not you"
    if st.st_mode & 0o022:
        return f"{path} is writable by others (mode {st.st_mode & 0o7777:o})"
    return None
