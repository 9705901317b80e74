package bulkhead.lab.cli

import bulkhead.lab.faults.{ClusterFaultRun, ClusterFaultSettings, NodeFault, ServiceDefaults}
import bulkhead.lab.process.{Environment, Launch}
import bulkhead.lab.report.SuiteReport
import bulkhead.lab.record.RunRecord
import scopt.OParser

import java.nio.file.{Files, Path}

/**
 * `lab cluster-faults`: the faults that need a cluster ([[NodeFault]]: a node killed, paused, partitioned, restarted
 * in a loop), each on a cluster of its own (the faults suite runs one service); exit 1 when a check fails or a fault
 * could not run.
 */
object ClusterFaultsCommand extends LabCommand:
  val name = "cluster-faults"
  val summary = "a node of a 3-node cluster under load killed, paused, partitioned, restarted in a loop (~2 min each)"

  final case class Options(nodes: Int = ClusterFaultSettings.Nodes, only: Seq[NodeFault] = NodeFault.values.toSeq,
      out: Option[Path] = None)

  private val names = NodeFault.values.map(_.name).mkString(", ")

  private val parser =
    val b = OParser.builder[Options]
    import b.*
    OParser.sequence(
      programName("bulkhead lab cluster-faults"),
      head(summary),
      opt[Int]("nodes").valueName("<n>").text("nodes of the cluster, 2..5 (default 3); the last one is faulted")
        .validate(n => if n >= 2 && n <= 5 then success else failure(s"--nodes must be 2..5, was $n"))
        .action((n, o) => o.copy(nodes = n)),
      opt[Seq[String]]("only").valueName("a,b").text(s"only these faults, in this order (default all: $names)")
        .validate(fs => fs.map(_.trim).find(f => NodeFault.named(f).isEmpty) match
          case Some(bad) => failure(s"unknown fault '$bad' in --only; faults: $names")
          case None => success)
        .action((fs, o) => o.copy(only = fs.map(_.trim).flatMap(NodeFault.named).distinct)),
      CommonFlags.out(b, "cluster-faults")((o, d) => o.copy(out = Some(d))),
      help("help").text("print this help"))

  def main(args: Seq[String]): Int = LabCommand.parse(parser, args, Options()) { o =>
    val launch = Launch.fromSystem()
    val settings = ClusterFaultSettings(ServiceDefaults.read(launch.serviceClasspath).soapTimeout, nodes = o.nodes)
    val dir = Files.createDirectories(o.out.getOrElse(Paths.results("cluster-faults")))
    println(s"bulkhead lab cluster-faults: ${o.only.map(_.name).mkString(", ")} on ${settings.nodes} nodes; report " +
      s"in $dir; load average ${Environment.loadAverage()}")
    val outcomes: Seq[Either[String, RunRecord]] = o.only.map { fault =>
      println(s"${fault.name}: ${fault.summary}")
      try
        ClusterFaultRun.available(fault, dir).left.map(e => s"${fault.name}: $e")
          .map(_ => ClusterFaultRun.run(fault, settings, launch, dir, println))
      catch case e: Exception => Left(s"${fault.name}: ${Option(e.getMessage).getOrElse(e.getClass.getSimpleName)}")
    }
    val failures = outcomes.collect { case Left(e) => e }
    failures.foreach(e => System.err.println(s"bulkhead lab cluster-faults: could not run $e"))
    val records = outcomes.collect { case Right(r) => r }
    val report = SuiteReport(s"bulkhead cluster faults: ${o.only.map(_.name).mkString(", ")}",
      s"./bulkhead lab cluster-faults ${args.mkString(" ")}".trim, Environment.read(launch), records, failures)
    FaultChecksPrint(report, report.write(dir), failures)
  }
