#!/usr/bin/env python3
"""A TLS endpoint on 127.0.0.1 in front of a plain HTTP server (the sandbox).

  tls_terminator.py --cert CERT --key KEY --upstream PORT [--client-ca CA]

Listens on a free port and prints "listening PORT" once ready. Each connection is
handshaken with Python's ssl module (OpenSSL); bytes go to and from the upstream port
only after the handshake succeeded, so a refused handshake reaches nothing. With
--client-ca, a client certificate signed by that CA is required.
"""
import argparse
import signal
import socket
import ssl
import sys
import threading


def pipe(source, destination):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            destination.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (source, destination):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def linger_close(connection):
    """Closes after the client has read our alert: closing with its unread bytes still
    queued would reset the connection and could discard the alert (as nginx's lingering
    close avoids)."""
    try:
        connection.shutdown(socket.SHUT_WR)
        connection.settimeout(10)
        while connection.recv(65536):
            pass
    except OSError:
        pass
    connection.close()


def serve(connection, context, upstream_port):
    # Each piece goes out at once: with Nagle's algorithm a request written in two parts
    # waits for the peer's delayed acknowledgement (40 ms).
    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        tls = context.wrap_socket(connection, server_side=True)
    except (ssl.SSLError, OSError) as error:
        print(f"handshake refused: {error}", file=sys.stderr, flush=True)
        linger_close(connection)
        return
    upstream = socket.create_connection(("127.0.0.1", upstream_port))
    upstream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    threading.Thread(target=pipe, args=(upstream, tls), daemon=True).start()
    pipe(tls, upstream)


def main():
    # A parent may have started us with signals blocked; SIGTERM must end us.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--upstream", type=int, required=True)
    parser.add_argument("--client-ca")
    arguments = parser.parse_args()

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(arguments.cert, arguments.key)
    if arguments.client_ca:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(arguments.client_ca)

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(f"listening {listener.getsockname()[1]}", flush=True)
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve, args=(connection, context, arguments.upstream), daemon=True).start()


if __name__ == "__main__":
    main()
