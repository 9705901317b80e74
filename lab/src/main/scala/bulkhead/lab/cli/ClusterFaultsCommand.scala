package bulkhead.lab.cli

import bulkhead.lab.faults.{NodeKilled, NodeKilledSettings, ServiceDefaults}
import bulkhead.lab.process.Launch
import bulkhead.lab.report.{Environment, SuiteReport}
import scopt.OParser

import java.nio.file.{Files, Path}

/**
 * `lab cluster-faults`: the node-killed fault on a Pekko Cluster (its own command: the faults suite runs one service,
 * this fault needs several); exit 1 when a check fails.
 */
object ClusterFaultsCommand extends LabCommand:
  val name = "cluster-faults"
  val summary = "node-killed: SIGKILL one node of a 3-node cluster under load, then start it again (~2 min)"

  final case class Options(nodes: Int = NodeKilledSettings.Nodes, out: Option[Path] = None)

  private val parser =
    val b = OParser.builder[Options]
    import b.*
    OParser.sequence(
      programName("bulkhead lab cluster-faults"),
      head(summary),
      opt[Int]("nodes").valueName("<n>").text("nodes of the cluster, 2..5 (default 3); the last one is killed")
        .validate(n => if n >= 2 && n <= 5 then success else failure(s"--nodes must be 2..5, was $n"))
        .action((n, o) => o.copy(nodes = n)),
      opt[String]("out").valueName("<dir>").text("report directory (default results/<date>-cluster-faults)")
        .action((d, o) => o.copy(out = Some(Path.of(d)))),
      help("help").text("print this help"))

  def main(args: Seq[String]): Int = LabCommand.parse(parser, args, Options()) { o =>
    val launch = Launch.fromSystem()
    val settings = NodeKilledSettings(ServiceDefaults.read(launch.serviceClasspath).soapTimeout, nodes = o.nodes)
    val dir = o.out.getOrElse(Paths.results("cluster-faults"))
    println(s"bulkhead lab cluster-faults: ${NodeKilled.Name} on ${settings.nodes} nodes; report in $dir; " +
      s"load average ${Environment.loadAverage()}")
    val outcome =
      try Right(NodeKilled.run(settings, launch, Files.createDirectories(dir), println))
      catch case e: Exception => Left(Option(e.getMessage).getOrElse(e.getClass.getSimpleName))
    outcome match
      case Left(err) =>
        System.err.println(s"bulkhead lab cluster-faults: could not run: $err")
        1
      case Right(record) =>
        val report = SuiteReport(s"bulkhead cluster faults: ${NodeKilled.Name}",
          s"./bulkhead lab cluster-faults ${args.mkString(" ")}".trim, Environment.read(launch), Seq(record), Nil)
        FaultsCommand.print(report, report.write(dir), Nil)
  }
