package bulkhead.service.config

import com.typesafe.config.{Config, ConfigException, ConfigFactory, ConfigValueFactory, ConfigValueType}

import scala.jdk.CollectionConverters.*

/** A node of the cluster to join first, as `host:port` of its Artery (remoting) socket. */
final case class SeedNode(host: String, port: Int):
  override def toString: String = s"$host:$port"

object SeedNode:
  /** `host:port`, `[v6-address]:port` too; the port 1..65535 (a seed must be reachable at a known port). */
  def parse(raw: String): Either[String, SeedNode] =
    val text = raw.trim
    val colon = text.lastIndexOf(':')
    val host = if colon > 0 then text.take(colon).stripPrefix("[").stripSuffix("]") else ""
    val port = if colon > 0 then text.drop(colon + 1).toIntOption else None
    (host, port) match
      case (h, Some(p)) if h.nonEmpty && p >= 1 && p <= 65535 => Right(SeedNode(h, p))
      case _ => Left(s"must be host:port with a port of 1..65535, was '$raw'")

/** Where this service sits: alone (local actors, no remoting), or a member of a Pekko Cluster. */
enum ClusterSettings:
  /** The service as one JVM: the actor provider stays local and no remoting socket is opened. */
  case SingleNode
  /**
   * A cluster member: Artery listens on `host:port` and the node joins through `seedNodes`; with none it starts a new
   * cluster of its own (the first node), which the others join by naming it as their seed.
   */
  case Member(host: String, port: Int, seedNodes: Seq[SeedNode])

object ClusterSettings:
  private val Key = "bulkhead.cluster"

  /** Reads `bulkhead.cluster.*`; throws `ConfigException.BadValue` naming the key and the bad value. */
  def apply(config: Config): ClusterSettings =
    val r = SettingsReader(config)
    val port = portOf(config, s"$Key.port")
    val seeds = seedsOf(config, s"$Key.seed-nodes")
    if port == -1 then
      r.check(s"$Key.seed-nodes", seeds.isEmpty,
        s"seed nodes need this node's own cluster port ($Key.port, --cluster-port), which is -1 (no cluster); " +
          s"seed nodes were ${seeds.mkString(", ")}")
      SingleNode
    else Member(r.nonEmpty(s"$Key.host").trim, port, seeds)

  /**
   * The Pekko keys that make an actor system named `systemName` this member, over the module's reference.conf (which
   * declares the serializer, the split-brain resolver and its timeouts). Empty for a single node.
   */
  def pekkoConfig(settings: ClusterSettings, systemName: String): Config = settings match
    case SingleNode => ConfigFactory.empty()
    case Member(host, port, seeds) =>
      // No seed: this node is the first one and joins itself, which Pekko does at once when it is its only seed.
      val joinThrough = if seeds.isEmpty then Seq(SeedNode(host, port)) else seeds
      val addresses = joinThrough.map(s => s"pekko://$systemName@${hostInAddress(s.host)}:${s.port}")
      ConfigFactory.empty()
        .withValue("pekko.actor.provider", ConfigValueFactory.fromAnyRef("cluster"))
        .withValue("pekko.remote.artery.canonical.hostname", ConfigValueFactory.fromAnyRef(host))
        .withValue("pekko.remote.artery.canonical.port", ConfigValueFactory.fromAnyRef(port))
        .withValue("pekko.cluster.seed-nodes", ConfigValueFactory.fromIterable(addresses.asJava))

  private def hostInAddress(host: String): String = if host.contains(':') then s"[$host]" else host

  /** -1 (no cluster) or 0..65535; a value that is not a number is refused with the value named. */
  private def portOf(config: Config, key: String): Int =
    val raw = config.getValue(key).unwrapped.toString.trim
    raw.toIntOption.filter(p => p >= -1 && p <= 65535).getOrElse(
      throw ConfigException.BadValue(key, s"must be a port of 0..65535, or -1 for a single node, was '$raw'"))

  /** A list of `host:port`, or one string of them separated by commas (what `--set` can give). */
  private def seedsOf(config: Config, key: String): Seq[SeedNode] =
    val raw: Seq[String] = config.getValue(key).valueType match
      case ConfigValueType.LIST => config.getList(key).unwrapped.asScala.map(_.toString).toSeq
      case _ => config.getString(key).split(',').toSeq
    raw.map(_.trim).filter(_.nonEmpty).map(s =>
      SeedNode.parse(s).fold(detail => throw ConfigException.BadValue(key, detail), identity))
