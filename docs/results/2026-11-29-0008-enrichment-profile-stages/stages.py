#!/usr/bin/env python3
"""Attributes async-profiler collapsed stacks to the enrichment pipeline's stages.

A stack goes to the first stage (in the order below) one of whose patterns matches any of its frames, so that the
specific (JSON inside an endpoint inside a stream) wins over the generic (the stream interpreter, the mailbox).
usage: stages.py collapsed.txt [us_per_answer_without_jit]
"""
import re, sys, collections

STAGES = [
    ("GC threads", [r"^G1", r"G1[A-Z]", r"ConcurrentGCThread", r"VMThread", r"WeakProcessor"]),
    ("JIT compiler threads", [r"CompileBroker", r"C2Compiler", r"Compile::"]),
    ("logging", [r"^ch/qos/logback", r"^org/slf4j", r"pekko/event/Logging", r"pekko/event/slf4j", r"FailureLog", r"CustomerRoutee\$\.logged"]),
    ("metrics/meters", [r"^io/micrometer", r"bulkhead/service/metrics", r"MeteredExecutor", r"CountingExecutor"]),
    ("JSON encode/decode", [r"jsoniter_scala", r"JsonCodecs", r"ApiError\$\.response"]),
    ("SOAP/XML parsing", [r"javax/xml", r"com/sun/org/apache/xerces", r"com/sun/xml/internal", r"jdk/xml", r"SafeXml", r"SoapProtocol\$\.read"]),
    ("SOAP request rendering", [r"SoapProtocol\$\.getCustomerRequest", r"HttpRequestRendererFactory"]),
    ("Redis client (lettuce, netty)", [r"^io/lettuce", r"^io/netty", r"LettuceProfileStores"]),
    ("timers (scheduler: SOAP deadline, ask, admission)", [r"LightArrayRevolverScheduler", r"Scheduler.*scheduleOnce", r"Cancellable.*cancel"]),
    ("SOAP client (host pool, client stages)", [r"pekko/http/impl/engine/client", r"HttpResponseParser", r"OutgoingConnectionBlueprint",
        r"NonBlockingSoapClient", r"AdmittedSoapClient", r"GuardedSoapClient", r"OpenEndedBody", r"pekko/pattern/CircuitBreaker",
        r"SelectorClientTransport", r"SelectorConnectionStage\$Logic\.(open|connect)", r"HttpEntity.*toStrict", r"StrictForm|ToStrict"]),
    ("HTTP server parsing", [r"pekko/http/impl/engine/parsing", r"org/parboiled2", r"pekko/http/impl/model/parser"]),
    ("HTTP server rendering", [r"pekko/http/impl/engine/rendering", r"DateHeaderRendering", r"pekko/http/impl/util/Rendering"]),
    ("routing, endpoint, head deadline", [r"pekko/http/scaladsl/server", r"bulkhead/service/http/(Routes|CustomersEndpoint|RequestHeadDeadline|ErrorHandling)",
        r"HttpServer\.(answer|withDeadline)"]),
    ("actor router (enrichment actors, ask)", [r"bulkhead/service/enrichment", r"pekko/actor/typed", r"pekko/pattern/(PromiseActorRef|AskSupport|PromiseRef)"]),
    ("connection set-up (server stream materialisation)", [r"HttpServer\.serve", r"HttpConnections\.serve", r"PhasedFusingActorMaterializer", r"ActorGraphInterpreter.*(preStart|init)", r"GraphInterpreterShell\.init"]),
    ("selector transport (IoLoop, socket I/O, epoll)", [r"^bulkhead/transport", r"^sun/nio/ch", r"epoll", r"sys_(read|write|recvfrom|sendto)", r"tcp_"]),
    ("Pekko stream interpreter", [r"pekko/stream"]),
    ("future callbacks (scala Promise on the dispatcher)", [r"scala/concurrent", r"TaskInvocation", r"BatchingExecutor"]),
    ("actor mailbox / dispatcher (incl. park/unpark)", [r"pekko/dispatch", r"pekko/actor", r"ForkJoin", r"Unsafe\.(park|unpark)"]),
]
COMPILED = [(name, [re.compile(p) for p in pats]) for name, pats in STAGES]

def stage_of(frames):
    for name, pats in COMPILED:
        for f in frames:
            for p in pats:
                if p.search(f):
                    return name
    return "other"

def main():
    path = sys.argv[1]
    per_answer = float(sys.argv[2]) if len(sys.argv) > 2 else None
    counts = collections.Counter(); examples = collections.defaultdict(collections.Counter); total = 0
    for line in open(path):
        stack, _, n = line.rstrip("\n").rpartition(" ")
        n = int(n); total += n
        frames = stack.split(";")
        s = stage_of(frames)
        counts[s] += n
        if s == "other": examples[s][";".join(frames[-4:])] += n
    jit = counts["JIT compiler threads"]
    print(f"{path}\n{total} samples, of which JIT {jit} ({100*jit/total:.1f} %)")
    print(f"| stage | % of samples | % without JIT |" + (f" us/answer (of {per_answer:.0f} without JIT) |" if per_answer else ""))
    print("| --- | --- | --- |" + (" --- |" if per_answer else ""))
    for name, _ in STAGES + [("other", [])]:
        v = counts[name]
        row = f"| {name} | {100*v/total:.1f} | " + ("-" if name.startswith("JIT") else f"{100*v/(total-jit):.1f}") + " |"
        if per_answer: row += " - |" if name.startswith("JIT") else f" {per_answer*v/(total-jit):.1f} |"
        print(row)
    if "-v" in sys.argv:
        for k, v in examples["other"].most_common(25): print(v, k[-250:])

main()
