package bulkhead.lab.model

/**
 * A server a scenario can load: bulkhead itself, a peer (a framework the seeds measured, or a server not written for
 * bulkhead), or nginx, the machine's ceiling. A scenario file names it (`target = "jetty"`) and a record keeps that
 * name; the lab reads the name once, into one of these.
 */
sealed trait Target:
  /** The name scenario files and records use. */
  def name: String
  /** What it is, for reports. */
  def description: String
  /** A JVM: the lab samples its threads with thread dumps (nginx has none). */
  def jvm: Boolean
  /** Of the flags a scenario gives the service, the ones this server is started with. */
  def flagsOf(serviceFlags: Seq[String]): Seq[String]
  /** It serves `GET /customers/{id}` from the stub and Redis the lab starts for it (bulkhead's enrichment pipeline). */
  def enrichment: Boolean = false
  override def toString: String = name

object Target:
  /** A server in a JVM of its own, started as `java -cp <its module's classpath> <mainClass>`. */
  sealed trait OnJvm extends Target:
    def mainClass: String
    /** Its Maven module, from the repository's root: where its classes and classpath are built. */
    def module: String
    final def jvm: Boolean = true

  /**
   * A server other than bulkhead: it serves /hello and /work only, without Redis (and without the stub, but the zoo),
   * unless it is a peer of the whole enrichment pipeline ([[Target.enrichment]]).
   */
  sealed trait Peer extends Target

  case object Bulkhead extends OnJvm:
    val name = "bulkhead"
    val description = "bulkhead (Pekko HTTP 1.3, tuned)"
    val mainClass = "bulkhead.service.Main"
    val module = "service"
    def flagsOf(serviceFlags: Seq[String]): Seq[String] = serviceFlags
    override def enrichment: Boolean = true

  /**
   * A peer in its own JVM. Of the service's flags it gets the ones it `understands`, each with its value; the others
   * are bulkhead's own, some without a value (--allow-default-dispatcher-work), so flags are read one by one, not in
   * pairs.
   */
  sealed abstract class JvmPeer(val name: String, val description: String, val mainClass: String,
      val understands: Set[String]) extends Peer, OnJvm:
    def module: String = s"peers/$name"
    def flagsOf(serviceFlags: Seq[String]): Seq[String] =
      serviceFlags.zip(serviceFlags.drop(1)).collect { case (f, v) if understands(f) => Seq(f, v) }.flatten

  case object AkkaHttp extends JvmPeer("akka-http", "Akka HTTP 10.2.10 / Akka 2.6.20 (the seeds' framework)",
    "bulkhead.peers.akkahttp.Main", PeerFlags.Seed)
  case object Spray extends JvmPeer("spray", "Spray 1.3.4 / Akka 2.3.9 (seed 002)", "bulkhead.peers.spray.Main",
    PeerFlags.Seed)
  case object PekkoMinimal extends JvmPeer("pekko-minimal", "Pekko HTTP 1.3, default settings",
    "bulkhead.peers.pekkominimal.Main", PeerFlags.Seed)
  case object Jetty extends JvmPeer("jetty", "Jetty 12.1, one QueuedThreadPool (a server not written for bulkhead)",
    "bulkhead.peers.jetty.Main", PeerFlags.Pool)
  case object Tomcat extends JvmPeer("tomcat",
    "Tomcat 11 embedded, one connector executor (a server not written for bulkhead)", "bulkhead.peers.tomcat.Main",
    PeerFlags.Pool)

  /**
   * The zoo: servers of frameworks the lab was not written for (Undertow, Vert.x, Apache HttpClient, HikariCP), one
   * chosen by `--app`, each capped by one resource. Every flag of its scenarios is its own, the backing's included
   * (the stub's --soap-endpoint, PostgreSQL's --jdbc-url).
   */
  case object Zoo extends JvmPeer("zoo", "the zoo: Undertow, Vert.x, Apache HttpClient or HikariCP, one capped resource",
      "bulkhead.zoo.Main", Set.empty):
    override def flagsOf(serviceFlags: Seq[String]): Seq[String] = serviceFlags

  /**
   * bulkhead's enrichment pipeline written as a Vert.x 5 user would (Vert.x Web, its WebClient on a host pool bounded
   * like bulkhead's SOAP pool, its Redis client, a StAX read of the SOAP answer): the same JSON for the same request, at
   * its own cost per answer. It gets the stub's and Redis's addresses as bulkhead does.
   */
  case object Vertx extends JvmPeer("vertx", "Vert.x 5.0 enrichment pipeline (Web, WebClient, Redis client, StAX)",
      "bulkhead.peers.vertx.Main", PeerFlags.Enrichment):
    override def enrichment: Boolean = true

  /** nginx with one worker, started by [[bulkhead.lab.process.Nginx]]; it takes none of the service's flags. */
  case object Nginx extends Peer:
    val name = "nginx"
    val description = "nginx, 1 worker (this machine's ceiling)"
    val jvm = false
    def flagsOf(serviceFlags: Seq[String]): Seq[String] = Nil

  val JvmPeers: Seq[JvmPeer] = Seq(AkkaHttp, Spray, PekkoMinimal, Jetty, Tomcat, Zoo, Vertx)
  /** Every target, in the order reports list them. */
  val All: Seq[Target] = Bulkhead +: JvmPeers :+ Nginx

  /** The target of this name, if there is one. */
  def named(name: String): Option[Target] = All.find(_.name == name)

  /** The target a scenario names, or why not, listing the valid names. */
  def parse(name: String): Either[String, Target] =
    named(name).toRight(s"unknown target '$name', expected one of ${All.map(_.name).mkString(", ")}")

/**
 * The service's flags a peer takes. Outside [[Target]]: a peer object built first would otherwise start Target's own
 * initialisation, whose list of every server would then hold that peer as null.
 */
private object PeerFlags:
  /** The ones the seeds varied: the Akka and Pekko peers take them as they are. */
  val Seed: Set[String] = Set("--blocking-pool-size", "--max-connections")
  /** Jetty and Tomcat size their one pool in their own terms. */
  val Pool: Set[String] = Set("--max-threads", "--min-threads")
  /** A peer of the enrichment pipeline: where the stub and Redis are, as the lab tells bulkhead. */
  val Enrichment: Set[String] = Set("--soap-endpoint", "--redis-uri")
