# No network: an outside address and a port the harness listens on at the
# host's loopback must both be unreachable.
import os, socket
def attempt(host, port):
    try:
        s = socket.create_connection((host, port), timeout=2)
    except OSError as e:
        return "blocked"
    s.close()
    return "CONNECTED"
print("outside", attempt("1.1.1.1", 53))
print("outside-dns", attempt("deb.debian.org", 80))
print("host-loopback", attempt("127.0.0.1", int(os.environ["HOST_PORT"])))
