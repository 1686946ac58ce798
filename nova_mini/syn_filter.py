#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""A socket filter that makes a TCP listener ignore new clients.

Closing a listening socket resets the connections still in its accept
queue: a client whose handshake completed in the instant between the
last ``accept`` and the ``close`` gets ``Connection reset`` instead of an
answer or a refusal, and cannot tell whether its request was served.
Attached before the queue is drained, this filter drops every new
connection request (a segment with SYN and without ACK) while letting
through the segments of handshakes already under way and of established
connections. So the queue stops growing, what is in it is accepted and
answered, and a new client's repeated SYN (after about a second) meets
the closed port: ``Connection refused``, which it may retry elsewhere.

Linux only (``SO_ATTACH_FILTER``, classic BPF); elsewhere ``drop_syns``
does nothing and says so.
"""

import ctypes
import socket
import struct

# <linux/filter.h> and <asm-generic/socket.h>.
SO_ATTACH_FILTER = 26
_LD_B_ABS = 0x30     # BPF_LD | BPF_B | BPF_ABS
_AND_K = 0x54        # BPF_ALU | BPF_AND | BPF_K
_JEQ_K = 0x15        # BPF_JMP | BPF_JEQ | BPF_K
_RET_K = 0x06        # BPF_RET | BPF_K

# A socket filter on TCP sees the segment from its TCP header: the flags
# are byte 13. SYN is 0x02, ACK 0x10.
_TCP_FLAGS = 13
_SYN = 0x02
_ACK = 0x10

# (code, jump if true, jump if false, constant): a new connection request
# is kept 0 bytes (dropped); anything else is kept whole.
_PROGRAM = (
    (_LD_B_ABS, 0, 0, _TCP_FLAGS),
    (_AND_K, 0, 0, _SYN | _ACK),
    (_JEQ_K, 0, 1, _SYN),
    (_RET_K, 0, 0, 0),
    (_RET_K, 0, 0, 0xffffffff),
)


def _sock_fprog():
    """The ``struct sock_fprog`` of the program, and the buffer it points
    to (keep it alive until the setsockopt call returns).
    """
    code = b''.join(struct.pack('HBBI', *op) for op in _PROGRAM)
    buf = ctypes.create_string_buffer(code, len(code))
    return struct.pack('HL', len(_PROGRAM), ctypes.addressof(buf)), buf


def drop_syns(sock):
    """Make the TCP listener ``sock`` drop new connection requests.

    The socket is shared by every process holding a copy of it (a
    gunicorn master and its workers): call this only when all of them
    stop accepting.

    :param sock: a listening ``socket.socket`` (TCP, IPv4 or IPv6).
    :returns: whether the filter is in place (False for a UNIX socket or
        on a system without socket filters).
    """
    if sock.family not in (socket.AF_INET, socket.AF_INET6):
        return False
    fprog, buf = _sock_fprog()
    try:
        sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, fprog)
    except OSError:
        return False
    finally:
        del buf
    return True
