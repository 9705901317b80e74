import socket, sys, threading, time, concurrent.futures as cf
port=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 2000
size=65536-512
head=f"GET /hello HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
i=0
while size-len(head)>8100:
    head+=f"X-Pad-{i}: "+"a"*8000+"\r\n"; i+=1
pre=f"X-Pad-{i}: "; head+=pre+"a"*(size-len(head)-len(pre)-2)+"\r\n"
data=head.encode()
socks=[]; lock=threading.Lock()
worst=[0.0]; stop=[False]
def probe():
    s=socket.create_connection(("127.0.0.1",port)); 
    while not stop[0]:
        t=time.time(); s.sendall(f"GET /health HTTP/1.1\r\nHost: x\r\n\r\n".encode()); b=s.recv(65536)
        worst[0]=max(worst[0],time.time()-t); time.sleep(0.1)
th=threading.Thread(target=probe); th.start()
def one(k):
    s=socket.create_connection(("127.0.0.1",port)); s.sendall(data)
    with lock: socks.append(s)
t0=time.time()
with cf.ThreadPoolExecutor(256) as ex: list(ex.map(one, range(n)))
t1=time.time()
print(f"held {len(socks)} heads in {t1-t0:.2f} s; /health worst {worst[0]*1000:.0f} ms")
time.sleep(1)
t2=time.time()
def fin(s):
    s.sendall(b"\r\n"); r=s.recv(100); s.close(); return r[:12]
with cf.ThreadPoolExecutor(256) as ex: res=list(ex.map(fin, socks))
print(f"finished in {time.time()-t2:.2f} s; statuses {sorted(set(res))}; /health worst {worst[0]*1000:.0f} ms")
stop[0]=True; th.join()
