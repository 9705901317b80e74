package bulkhead.lab.process

/** The servers a scenario can load: bulkhead itself, or one of the peers the seeds measured (or the ceiling). */
object Target:
  val Bulkhead = "bulkhead"
  val AkkaHttp = "akka-http"
  val Spray = "spray"
  val PekkoMinimal = "pekko-minimal"
  val Nginx = "nginx"

  val JvmPeers: Seq[String] = Seq(AkkaHttp, Spray, PekkoMinimal)
  val All: Seq[String] = Seq(Bulkhead) ++ JvmPeers :+ Nginx

  /** What each is, for reports. */
  val Describe: Map[String, String] = Map(
    Bulkhead -> "bulkhead (Pekko HTTP 1.3, tuned)",
    AkkaHttp -> "Akka HTTP 10.2.10 / Akka 2.6.20 (the seeds' framework)",
    Spray -> "Spray 1.3.4 / Akka 2.3.9 (seed 002)",
    PekkoMinimal -> "Pekko HTTP 1.3, default settings",
    Nginx -> "nginx, 1 worker (this machine's ceiling)")

  def mainClass(peer: String): String = peer match
    case AkkaHttp => "bulkhead.peers.akkahttp.Main"
    case Spray => "bulkhead.peers.spray.Main"
    case PekkoMinimal => "bulkhead.peers.pekkominimal.Main"
    case other => throw IllegalArgumentException(s"not a JVM peer: $other")

  /**
   * The service flags a peer understands (the ones the seeds varied, each with a value); the others are bulkhead's
   * own, some of them without a value (--allow-default-dispatcher-work), so flags are read one by one, not in pairs.
   */
  def peerFlags(flags: Seq[String]): Seq[String] =
    flags.zip(flags.drop(1)).collect { case (f @ ("--blocking-pool-size" | "--max-connections"), v) => Seq(f, v) }
      .flatten
