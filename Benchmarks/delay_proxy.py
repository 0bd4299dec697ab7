#!/usr/bin/env python3
"""A TCP proxy on 127.0.0.1 that adds a network round trip R (this kernel has no netem).

  delay_proxy.py --upstream PORT --rtt-ms R

Prints "listening PORT" once ready. Each connection waits R before it reaches the
upstream (the TCP handshake's round trip); then every chunk waits R/2 in each direction,
in order, so a request and its answer cost one R, as on a network with that round trip.
"""
import argparse
import asyncio
import socket
import sys


async def forward(reader, writer, delay):
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()

    async def deliver():
        while True:
            due, data = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if data is None:
                break
            writer.write(data)
            await writer.drain()
        try:
            writer.write_eof()
        except OSError:
            pass

    sender = asyncio.create_task(deliver())
    try:
        while True:
            data = await reader.read(65536)
            await queue.put((loop.time() + delay, data or None))
            if not data:
                break
    except OSError:
        await queue.put((loop.time(), None))
    await sender


async def handle(client_reader, client_writer, upstream, rtt):
    await asyncio.sleep(rtt)
    try:
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", upstream)
    except OSError:
        client_writer.close()
        return
    for writer in (client_writer, upstream_writer):
        writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    await asyncio.gather(
        forward(client_reader, upstream_writer, rtt / 2),
        forward(upstream_reader, client_writer, rtt / 2),
        return_exceptions=True,
    )
    for writer in (client_writer, upstream_writer):
        writer.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--upstream", type=int, required=True)
    parser.add_argument("--rtt-ms", type=float, required=True)
    arguments = parser.parse_args()
    rtt = arguments.rtt_ms / 1000
    server = await asyncio.start_server(lambda r, w: handle(r, w, arguments.upstream, rtt), "127.0.0.1", 0, backlog=1024)
    print("listening", server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
