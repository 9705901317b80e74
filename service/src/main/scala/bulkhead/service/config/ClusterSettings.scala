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

/**
 * Artery over TLS with mutual authentication (Pekko's `tls-tcp`): this node's key store (its certificate and key) and
 * the trust store of the certificates it accepts from the other nodes. Passwords come from the keys' environment
 * variables by default (never a flag: a command line is visible to every user of the machine).
 */
final case class ClusterTls(keyStore: String, keyStorePassword: String, trustStore: String, trustStorePassword: String):
  override def toString: String = s"ClusterTls($keyStore, ***, $trustStore, ***)"

/** Where this service sits: alone (local actors, no remoting), or a member of a Pekko Cluster. */
enum ClusterSettings:
  /** The service as one JVM: the actor provider stays local and no remoting socket is opened. */
  case SingleNode
  /**
   * A cluster member: Artery listens on `host:port` and the node joins through `seedNodes`; with none it starts a new
   * cluster of its own (the first node), which the others join by naming it as their seed.
   */
  case Member(host: String, port: Int, seedNodes: Seq[SeedNode], tls: Option[ClusterTls] = None)

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
    else
      val host = r.nonEmpty(s"$Key.host").trim
      val tls = tlsOf(r)
      // Plaintext, unauthenticated Artery lets any host that reaches the port join the cluster, register routees and
      // answer customers: off loopback, only nodes that prove who they are may join.
      if tls.isEmpty && !loopback(host) then
        throw ConfigException.BadValue(s"$Key.host", s"'$host' is not a loopback address, and a cluster off " +
          s"loopback needs TLS with mutual authentication: set $Key.tls.key-store and $Key.tls.trust-store (and their " +
          "passwords, by default from BULKHEAD_CLUSTER_KEY_STORE_PASSWORD and BULKHEAD_CLUSTER_TRUST_STORE_PASSWORD)")
      Member(host, port, seeds, tls)

  /** A loopback address, by its text alone (no name is resolved: `localhost` is taken as loopback). */
  def loopback(host: String): Boolean =
    host == "localhost" || host.startsWith("127.") || host == "::1" || host == "0:0:0:0:0:0:0:1"

  /** TLS when a key store is set: both stores readable files, both passwords set. */
  private def tlsOf(r: SettingsReader): Option[ClusterTls] =
    val keyStore = r.string(s"$Key.tls.key-store").trim
    if keyStore.isEmpty then None
    else
      def file(key: String) =
        val path = r.nonEmpty(key).trim
        r.check(key, java.nio.file.Files.isReadable(java.nio.file.Path.of(path)), s"no readable file '$path'")
        path
      Some(ClusterTls(file(s"$Key.tls.key-store"), r.nonEmpty(s"$Key.tls.key-store-password"),
        file(s"$Key.tls.trust-store"), r.nonEmpty(s"$Key.tls.trust-store-password")))

  /**
   * The Pekko keys that make an actor system named `systemName` this member, over the module's reference.conf (which
   * declares the serializer, the split-brain resolver and its timeouts). Empty for a single node.
   */
  def pekkoConfig(settings: ClusterSettings, systemName: String): Config = settings match
    case SingleNode => ConfigFactory.empty()
    case Member(host, port, seeds, tls) =>
      // No seed: this node is the first one and joins itself, which Pekko does at once when it is its only seed.
      val joinThrough = if seeds.isEmpty then Seq(SeedNode(host, port)) else seeds
      val addresses = joinThrough.map(s => s"pekko://$systemName@${hostInAddress(s.host)}:${s.port}")
      val engine = "pekko.remote.artery.ssl.config-ssl-engine"
      val secured = tls.fold(ConfigFactory.empty()) { t =>
        ConfigFactory.empty()
          .withValue("pekko.remote.artery.transport", ConfigValueFactory.fromAnyRef("tls-tcp"))
          .withValue(s"$engine.key-store", ConfigValueFactory.fromAnyRef(t.keyStore))
          .withValue(s"$engine.key-store-password", ConfigValueFactory.fromAnyRef(t.keyStorePassword))
          .withValue(s"$engine.key-password", ConfigValueFactory.fromAnyRef(t.keyStorePassword))
          .withValue(s"$engine.trust-store", ConfigValueFactory.fromAnyRef(t.trustStore))
          .withValue(s"$engine.trust-store-password", ConfigValueFactory.fromAnyRef(t.trustStorePassword))
          .withValue(s"$engine.require-mutual-authentication", ConfigValueFactory.fromAnyRef(true))
      }
      secured
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
