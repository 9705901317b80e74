package bulkhead.lab.process

/** The servers a scenario can load: bulkhead itself, or one of the peers the seeds measured (or the ceiling). */
object Target:
  val Bulkhead = "bulkhead"
  val AkkaHttp = "akka-http"
  val Spray = "spray"
  val PekkoMinimal = "pekko-minimal"
  val Jetty = "jetty"
  val Tomcat = "tomcat"
  val Nginx = "nginx"

  val JvmPeers: Seq[String] = Seq(AkkaHttp, Spray, PekkoMinimal, Jetty, Tomcat)
  val All: Seq[String] = Seq(Bulkhead) ++ JvmPeers :+ Nginx

  /** What each is, for reports. */
  val Describe: Map[String, String] = Map(
    Bulkhead -> "bulkhead (Pekko HTTP 1.3, tuned)",
    AkkaHttp -> "Akka HTTP 10.2.10 / Akka 2.6.20 (the seeds' framework)",
    Spray -> "Spray 1.3.4 / Akka 2.3.9 (seed 002)",
    PekkoMinimal -> "Pekko HTTP 1.3, default settings",
    Jetty -> "Jetty 12.1, one QueuedThreadPool (a server not written for bulkhead)",
    Tomcat -> "Tomcat 11 embedded, one connector executor (a server not written for bulkhead)",
    Nginx -> "nginx, 1 worker (this machine's ceiling)")

  def mainClass(peer: String): String = peer match
    case AkkaHttp => "bulkhead.peers.akkahttp.Main"
    case Spray => "bulkhead.peers.spray.Main"
    case PekkoMinimal => "bulkhead.peers.pekkominimal.Main"
    case Jetty => "bulkhead.peers.jetty.Main"
    case Tomcat => "bulkhead.peers.tomcat.Main"
    case other => throw IllegalArgumentException(s"not a JVM peer: $other")

  /**
   * The flags a peer understands: of the service's, the ones the seeds varied; Jetty and Tomcat size their one pool
   * in their own terms (--max-threads, --min-threads). The others are bulkhead's own, some without a value
   * (--allow-default-dispatcher-work), so flags are read one by one, not in pairs.
   */
  def peerFlags(peer: String, flags: Seq[String]): Seq[String] =
    val understood = if peer == Jetty || peer == Tomcat then Set("--max-threads", "--min-threads")
      else Set("--blocking-pool-size", "--max-connections")
    flags.zip(flags.drop(1)).collect { case (f, v) if understood(f) => Seq(f, v) }.flatten
