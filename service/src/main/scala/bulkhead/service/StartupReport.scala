package bulkhead.service

import bulkhead.service.config.{ClusterSettings, MetricsListener, ServiceSettings}
import bulkhead.service.dispatch.Pools
import bulkhead.service.http.HttpServer

/** What the service says when it starts: where it listens and what bounds its throughput. */
object StartupReport:
  def apply(settings: ServiceSettings, port: Int, metricsPort: Int): String =
    val p = settings.pools
    val cores = Runtime.getRuntime.availableProcessors()
    val defaultThreads =
      math.ceil(cores * p.defaultParallelismFactor).toInt.max(p.defaultParallelismMin).min(p.defaultParallelismMax)
    val e = settings.enrichment
    val metricsAt = settings.metrics match
      case MetricsListener.OnServiceListener => s"${settings.host}:$port"
      case MetricsListener.Separate(host, _) => s"$host:$metricsPort"
    s"bulkhead service listening on http://${settings.host}:$port (JDK ${Runtime.version()}, $cores cores); " +
      s"metrics at http://$metricsAt/metrics; " +
      s"pools: ${Pools.Default.label}=$defaultThreads threads, ${Pools.Blocking.label}=${p.blockingPoolSize} threads, " +
      s"${Pools.Virtual.label}=${if Pools.virtualThreadsAvailable then "available" else "unavailable (JDK < 21)"}; " +
      s"max-connections=${settings.server.maxConnections} (+${settings.server.refusedConnections} answered 503), " +
      s"heap ${HeapBudget.processMaxHeap() >> 20} MiB for ${HeapBudget.required(settings) >> 20} MiB of heads, " +
      "connections and working set, " +
      s"request-head-timeout=${settings.server.requestHeadTimeout}, backlog=${settings.server.backlog}, " +
      s"listeners=${HttpServer.listenersFor(settings.server.listeners)}; " +
      s"enrichment: ${e.routees} routees, soap ${e.soap.mode.key} -> ${e.soap.endpoint}, " +
      s"redis ${e.redis.connections.key}; ${cluster(settings.cluster)}"

  private def cluster(c: ClusterSettings): String = c match
    case ClusterSettings.SingleNode => "single node (no cluster, no remoting)"
    case ClusterSettings.Member(host, port, seeds, tls) =>
      s"cluster node at $host:${if port == 0 then "any free port" else port}" +
        s"${if tls.isDefined then " (TLS, mutual authentication)" else " (loopback, plaintext)"}, " +
        (if seeds.isEmpty then "starting a new cluster" else s"joining through ${seeds.mkString(", ")}")
