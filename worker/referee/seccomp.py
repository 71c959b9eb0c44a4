"""The seccomp filter of the engine sandbox, made by libseccomp (``worker.referee.sandbox``).

bubblewrap loads a filter given as a compiled classic BPF program (``--seccomp FD``); libseccomp,
the library systemd, Docker and Flatpak build theirs with, compiles it (architecture checks, the
x32 and 32-bit entry points, syscall numbers by name). It is called here through ctypes: Debian's
``libseccomp2`` is on every machine that has systemd, and its Python bindings are not on PyPI for
this interpreter (python3-seccomp is built for Debian's own Python only).

The filter allows everything except the calls a program could use to leave or look through the
sandbox, or that widen the kernel's surface to it, which fail with EPERM (ENOSYS for ``clone3``,
so that the C library falls back to ``clone``, whose flags the filter can read): namespaces and
mounts, tracing and reading other processes, the kernel's keyrings, BPF, performance counters,
io_uring (whose operations bypass the filter), userfaultfd, kernel modules, and personality
changes (the persona the referee set, fixed addresses, is kept; asking for it is allowed).
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os

#: Calls that fail with EPERM, whatever their arguments.
DENIED = (
    "setns",
    "unshare",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "pidfd_getfd",
    "keyctl",
    "add_key",
    "request_key",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "syslog",
    "acct",
    "swapon",
    "swapoff",
    "reboot",
    "quotactl",
    "name_to_handle_at",
    "open_by_handle_at",
    "lookup_dcookie",
    "vhangup",
)
#: clone(2) flags that make a namespace: a clone with any of them fails.
CLONE_NAMESPACES = (0x00020000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000, 0x02000000)
#: personality(2)'s argument that only reads the persona.
PERSONALITY_QUERY = 0xFFFFFFFF

_SCMP_ACT_ALLOW = 0x7FFF0000
_SCMP_CMP_NE = 1
_SCMP_CMP_MASKED_EQ = 7


def _errno_action(code: int) -> int:
    return 0x00050000 | code


class _ArgCmp(ctypes.Structure):
    """libseccomp's ``struct scmp_arg_cmp``."""

    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


class SeccompUnavailable(Exception):
    """libseccomp cannot be loaded or cannot make the filter here (the reason is the text)."""


def _library() -> ctypes.CDLL:
    try:
        lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError as e:
        raise SeccompUnavailable(f"libseccomp is not installed (Debian: libseccomp2): {e}") from None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    ]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib


@functools.cache
def filter_program() -> bytes:
    """The compiled filter (classic BPF, this machine's architecture), made once;
    SeccompUnavailable when libseccomp is missing or refuses a rule."""
    lib = _library()
    ctx = lib.seccomp_init(_SCMP_ACT_ALLOW)
    if not ctx:
        raise SeccompUnavailable("libseccomp could not start a filter")
    try:

        def add(name: str, action: int, *conditions: _ArgCmp) -> None:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number < 0:
                return  # a call this architecture does not have
            array = (_ArgCmp * len(conditions))(*conditions) if conditions else None
            status = lib.seccomp_rule_add_array(ctx, action, number, len(conditions), array)
            if status != 0:
                raise SeccompUnavailable(f"libseccomp refused the rule for {name}: {os.strerror(-status)}")

        eperm = _errno_action(errno.EPERM)
        for name in DENIED:
            add(name, eperm)
        add("clone3", _errno_action(errno.ENOSYS))
        for flag in CLONE_NAMESPACES:
            add("clone", eperm, _ArgCmp(0, _SCMP_CMP_MASKED_EQ, flag, flag))
        add("personality", eperm, _ArgCmp(0, _SCMP_CMP_NE, PERSONALITY_QUERY, 0))
        fd = os.memfd_create("arbiter-seccomp")
        try:
            status = lib.seccomp_export_bpf(ctx, fd)
            if status != 0:
                raise SeccompUnavailable(f"libseccomp could not export the filter: {os.strerror(-status)}")
            return os.pread(fd, 1 << 20, 0)
        finally:
            os.close(fd)
    finally:
        lib.seccomp_release(ctx)
