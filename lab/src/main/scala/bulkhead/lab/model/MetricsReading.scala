package bulkhead.lab.model

/**
 * One thread pool's gauges in a scrape: bulkhead's executors, and any other thread pool the service's meters describe
 * ([[PoolMeter]]: Tomcat's, Jetty's). `meter`: the meter its busy threads are read from (`tomcat_threads_busy_threads`).
 */
final case class PoolGauge(label: String, active: Option[Double], max: Option[Double], completed: Option[Double],
    queued: Option[Double], meter: Option[String] = None)

/**
 * What the lab reads from a scrape of bulkhead's /metrics, typed: the pools, requests answered by status class, the
 * server's connections, the SOAP client's calls and connections, the request-latency histogram and, on a cluster, the
 * members this node sees and the routees its router lists per node (`host:port`). The SOAP calls the third party
 * answered (`soapAnswered`) are the ones that held a connection; a blocking client's exchanges are its calls' time on a
 * thread, without the wait for one. What the faults suite follows: the circuit breaker's state (0 closed, 1 half-open,
 * 2 open) and its openings so far, enrichments in flight, answers degraded so far (loyalty unavailable), heap used.
 * `soapRefused`: SOAP calls the service refused itself, never sent (no slot within its wait, or the breaker open);
 * `soapWaiting`: SOAP calls waiting for a slot now; `workInFlight`: /work requests of every mode in flight now.
 * `meters`: every pool the service's own meters describe, read by what their names mean ([[PoolMeter]]), whatever the
 * service. Every metric name the lab depends on is here and nowhere else.
 */
final case class MetricsReading(pools: Seq[PoolGauge], answeredByClass: Map[String, Double],
    connectionsOpen: Option[Double], connectionsMax: Option[Double], soapInFlight: Option[Double],
    soapCalls: Option[Double], soapSeconds: Option[Double], soapConnectionsMax: Option[Double],
    latencyBuckets: Map[String, Double], clusterMembersUp: Option[Double] = None,
    clusterUnreachable: Option[Double] = None, clusterRoutees: Map[String, Double] = Map.empty,
    soapAnswered: Option[Double] = None, soapExchanges: Option[Double] = None,
    soapExchangeSeconds: Option[Double] = None, circuitState: Option[Double] = None,
    circuitOpenings: Option[Double] = None, enrichmentInFlight: Option[Double] = None,
    loyaltyUnavailable: Option[Double] = None, heapUsedBytes: Option[Double] = None,
    soapRefused: Option[Double] = None, soapWaiting: Option[Double] = None, workInFlight: Option[Double] = None,
    meters: Seq[PoolMeter] = Nil):
  def answered: Double = answeredByClass.values.sum
  def heapUsedMb: Option[Double] = heapUsedBytes.map(_ / 1024 / 1024)
  def pool(label: String): Option[PoolGauge] = pools.find(_.label == label)

object MetricsReading:
  object Names:
    val PoolActive = "executor_active_threads"
    val PoolMax = "executor_pool_max_threads"
    val PoolCompleted = "executor_completed_tasks_total"
    val PoolQueued = "executor_queued_tasks"
    val Requests = "http_server_requests_seconds_count"
    val RequestBuckets = "http_server_requests_seconds_bucket"
    val ConnectionsOpen = "http_server_connections_open"
    val ConnectionsMax = "http_server_connections_max"
    val SoapInFlight = "soap_client_in_flight_calls"
    val SoapWaiting = "soap_client_waiting_calls"
    val SoapCalls = "soap_client_calls_seconds_count"
    val SoapSeconds = "soap_client_calls_seconds_sum"
    val SoapConnectionsMax = "soap_client_connections_max"
    val SoapExchanges = "soap_client_exchanges_seconds_count"
    val SoapExchangeSeconds = "soap_client_exchanges_seconds_sum"
    val CircuitState = "soap_circuit_state"
    val CircuitOpenings = "soap_circuit_opened_total"
    val EnrichmentInFlight = "enrichment_in_flight"
    val WorkInFlight = "work_in_flight"
    val LoyaltyUnavailable = "enrichment_loyalty_unavailable_total"
    val HeapUsed = "jvm_memory_used_bytes"
    val ClusterMembersUp = "cluster_members_up"
    val ClusterUnreachable = "cluster_members_unreachable"
    val ClusterRoutees = "cluster_routees"

  private val Sample = """^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\d+)?$""".r
  private val Label = """([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"""".r

  /** One sample line: name, labels, value. */
  final case class Line(name: String, labels: Map[String, String], value: Double)

  def lines(text: String): Seq[Line] =
    text.linesIterator.filterNot(l => l.startsWith("#") || l.isBlank).flatMap {
      case Sample(name, _, labels, value, _) =>
        value.toDoubleOption.map(v => Line(name, Option(labels).toSeq.flatMap(l =>
          Label.findAllMatchIn(l).map(m => m.group(1) -> m.group(2))).toMap, v))
      case _ => None
    }.toSeq

  def parse(text: String): MetricsReading =
    val all = lines(text)
    def named(n: String) = all.filter(_.name == n)
    def one(n: String) = named(n).headOption.map(_.value).filterNot(_.isNaN)
    def sum(n: String) = Option(named(n)).filter(_.nonEmpty).map(_.map(_.value).filterNot(_.isNaN).sum)
    def byPool(n: String) = named(n).flatMap(l => l.labels.get("name").map(_ -> l.value)).toMap
    val (active, max, completed, queued) = (byPool(Names.PoolActive), byPool(Names.PoolMax),
      byPool(Names.PoolCompleted), byPool(Names.PoolQueued))
    def finite(m: Map[String, Double], k: String) = m.get(k).filterNot(v => v.isNaN || v.isInfinite)
    val executors = (active.keySet ++ max.keySet).toSeq.sorted.map(l =>
      PoolGauge(l, finite(active, l), finite(max, l), finite(completed, l), finite(queued, l), Some(Names.PoolActive)))
    val meters = PoolMeter.of(all)
    // Other thread pools the meters describe (a server's own: Tomcat's, Jetty's), by the tag that names them.
    val servers = meters.filter(m => m.unit == "threads" && !m.inUse.exists(_.meter == Names.PoolActive))
      .map(m => PoolGauge(m.label, m.used, m.size.map(_.value), m.completed.map(_.value), m.waiting.map(_.value),
        m.inUse.orElse(m.idle).map(_.meter)))
    val pools = executors ++ servers.filterNot(g => executors.exists(_.label == g.label))
    val answered = named(Names.Requests).flatMap(l => l.labels.get("status").flatMap(_.toIntOption)
      .map(s => Answers.classOf(s) -> l.value)).groupMapReduce(_._1)(_._2)(_ + _)
    val buckets = named(Names.RequestBuckets).flatMap(l => l.labels.get("le").map(_ -> l.value))
      .groupMapReduce(_._1)(_._2)(_ + _)
    val routees = named(Names.ClusterRoutees).flatMap(l => l.labels.get("node").map(_ -> l.value)).toMap
    MetricsReading(pools, answered, one(Names.ConnectionsOpen), one(Names.ConnectionsMax), sum(Names.SoapInFlight),
      sum(Names.SoapCalls), sum(Names.SoapSeconds), one(Names.SoapConnectionsMax), buckets,
      one(Names.ClusterMembersUp), one(Names.ClusterUnreachable), routees,
      Option(named(Names.SoapCalls).filter(_.labels.get("outcome").contains("answered")).map(_.value)).filter(_.nonEmpty)
        .map(_.sum), one(Names.SoapExchanges), one(Names.SoapExchangeSeconds), one(Names.CircuitState),
      one(Names.CircuitOpenings), one(Names.EnrichmentInFlight), one(Names.LoyaltyUnavailable),
      Option(named(Names.HeapUsed).filter(_.labels.get("area").contains("heap"))).filter(_.nonEmpty)
        .map(_.map(_.value).sum),
      Option(named(Names.SoapCalls).filter(_.labels.get("outcome").contains("refused")).map(_.value)).filter(_.nonEmpty)
        .map(_.sum), one(Names.SoapWaiting), sum(Names.WorkInFlight), meters)
