# usage: storm.py PORT PID N ROUNDS PATH : N connections opened at once, one request each, closed; JVM CPU per connection
import socket, sys, time, selectors
port, pid, n, rounds, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
def cpu():
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / 100.0
req = f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()
for r in range(rounds):
    c0 = cpu(); t0 = time.time()
    sel = selectors.DefaultSelector(); socks = []
    for i in range(n):
        s = socket.socket(); s.setblocking(False)
        try: s.connect(("127.0.0.1", port))
        except BlockingIOError: pass
        sel.register(s, selectors.EVENT_WRITE); socks.append(s)
    done = 0; lat = []
    start = {}
    while done < n:
        for key, ev in sel.select(timeout=30):
            s = key.fileobj
            if ev & selectors.EVENT_WRITE:
                s.send(req); start[s] = time.time(); sel.modify(s, selectors.EVENT_READ)
            else:
                d = s.recv(65536)
                if not d:
                    lat.append(time.time() - start[s]); sel.unregister(s); s.close(); done += 1
    t1 = time.time(); time.sleep(0.5); c1 = cpu()
    lat.sort()
    print(f"round {r}: {n} conns in {t1-t0:.2f}s, JVM cpu {c1-c0:.2f}s = {(c1-c0)/n*1000:.2f} ms/conn, first-request p50 {lat[n//2]*1000:.0f} ms p99 {lat[int(n*.99)]*1000:.0f} ms max {lat[-1]*1000:.0f} ms")
