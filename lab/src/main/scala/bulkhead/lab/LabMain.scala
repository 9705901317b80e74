package bulkhead.lab

import bulkhead.lab.bench.BenchSuite
import bulkhead.lab.cli.*
import bulkhead.lab.process.Children

/** `./bulkhead lab <command>` and `./bulkhead demo`: dispatches to one command, each with its own `--help`. */
object LabMain:
  val Commands: Seq[LabCommand] = Seq(RunCommand, DemoCommand, ReportCommand, DiagnoseCommand, AccuracyCommand,
    ThreadsCommand, AnalyzeCommand, FaultsCommand, BenchCommand,
    ClusterFaultsCommand, GateCommand, CapacityCommand)

  def usage: String =
    val width = Commands.map(_.name.length).max
    s"""usage: ./bulkhead lab <command> [options]   (./bulkhead lab <command> --help for its options)
       |
       |${Commands.map(c => s"  ${c.name.padTo(width, ' ')}  ${c.summary}").mkString("\n")}
       |
       |bench suites: ${BenchSuite.All.map(_.name).mkString(", ")}""".stripMargin

  /** The project's version, written into `version.properties` by Maven from the pom. */
  lazy val version: String =
    val properties = java.util.Properties()
    Option(getClass.getResourceAsStream("version.properties")).foreach(in =>
      try properties.load(in) finally in.close())
    properties.getProperty("version", "unknown")

  def main(args: Array[String]): Unit =
    val code = args.toList match
      case ("help" | "--help" | "-h") :: _ | Nil =>
        println(usage)
        0
      case ("--version" | "version") :: _ =>
        println(s"bulkhead lab $version")
        0
      case name :: rest => Commands.find(_.name == name) match
        case Some(command) => command.main(rest)
        case None =>
          System.err.println(s"bulkhead lab: unknown command '$name'\n$usage")
          2
    Children.stopAll()
    sys.exit(code)
