#!/usr/bin/env python3
"""Runs a command with io_uring refused, as a locked-down container or a kernel with
kernel.io_uring_disabled = 2 refuses it: a seccomp filter makes its three system calls fail
with EPERM for the command and everything it starts. The machine's setting is left alone.

    python3 tests/without_io_uring.py COMMAND [ARGS...]
"""

import ctypes
import errno
import os
import struct
import sys

# io_uring_setup, io_uring_enter, io_uring_register: the same numbers on every architecture.
IO_URING_SYSCALLS = (425, 426, 427)

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
BPF_LD_W_ABS = 0x20  # load the 32-bit word at an offset of struct seccomp_data
BPF_JEQ_K = 0x15
BPF_RET_K = 0x06
SYSCALL_NR_OFFSET = 0  # seccomp_data.nr


def instruction(code: int, jump_true: int, jump_false: int, k: int) -> bytes:
    return struct.pack("HBBI", code, jump_true, jump_false, k)


def filter_program() -> bytes:
    """Load the call's number; each io_uring call jumps to the last-but-one (EPERM); else allow."""
    count = len(IO_URING_SYSCALLS)
    program = [instruction(BPF_LD_W_ABS, 0, 0, SYSCALL_NR_OFFSET)]
    for index, number in enumerate(IO_URING_SYSCALLS):
        program.append(instruction(BPF_JEQ_K, count - index, 0, number))
    program.append(instruction(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW))
    program.append(instruction(BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | errno.EPERM))
    return b"".join(program)


def refuse_io_uring() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    code = filter_program()
    buffer = ctypes.create_string_buffer(code, len(code))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    program = SockFprog(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    for args in ((PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0),
                 (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(program), 0, 0)):
        if libc.prctl(*[ctypes.c_ulong(a) for a in args]) != 0:
            raise OSError(ctypes.get_errno(), f"prctl{args[:2]}: {os.strerror(ctypes.get_errno())}")


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(f"usage: {sys.argv[0]} COMMAND [ARGS...]")
    try:
        refuse_io_uring()
    except OSError as error:
        sys.exit(f"without_io_uring.py: cannot install the seccomp filter: {error}")
    os.execvp(sys.argv[1], sys.argv[1:])


if __name__ == "__main__":
    main()
