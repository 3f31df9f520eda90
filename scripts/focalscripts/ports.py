"""Loopback ports. `python3 -m focalscripts.ports [N]` prints N free ports (default 1), one a line,
for the shell scripts."""
import argparse
import random
import socket

from .cli import prog


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def quiet_port(taken=(), headroom=0):
    """A free TCP port on 127.0.0.1 below the kernel's range for outgoing connections' own ports
    (`ip_local_port_range`), not in `taken`. A server that binds its listeners one after another
    while connecting to itself (SeaweedFS) can lose a port picked from that range to one of its
    own connections before it binds it. `headroom`: the port plus it is below the range too."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    for _ in range(1000):
        port = random.randint(12000, max(low - 1, 32767) - headroom)
        if port not in taken and port_is_free(port):
            return port
    raise RuntimeError("no free port below the outgoing range")


def port_is_free(port):
    """Whether a server could bind 127.0.0.1:`port` now."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def main():
    parser = argparse.ArgumentParser(prog=prog(__spec__), description=__doc__)
    parser.add_argument("count", nargs="?", type=int, default=1, help="how many ports (default 1)")
    count = parser.parse_args().count
    ports = set()
    while len(ports) < count:
        ports.add(free_port())
    print("\n".join(map(str, sorted(ports))))


if __name__ == "__main__":
    main()
