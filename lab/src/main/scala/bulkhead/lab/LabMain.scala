package bulkhead.lab

import bulkhead.lab.bench.BenchSuite
import bulkhead.lab.cli.*
import bulkhead.lab.process.{Children, Launch}

/**
 * `java -jar bulkhead-lab.jar <command>`, `./bulkhead lab <command>` and `./bulkhead demo`: dispatches to one command,
 * each with its own `--help`. The jar runs the tool's commands; a clone of the repository runs its jobs too.
 */
object LabMain:
  /** What a user runs on a service of their own: the commands bulkhead-lab.jar ships. */
  val Tool: Seq[LabCommand] = Seq(DiagnoseCommand, CapacityCommand, ThreadsCommand, AnalyzeCommand, ReportCommand,
    GateCommand)

  /**
   * The repository's jobs: they start its service, its stub and the peers from a clone's build, and load libraries
   * the jar leaves out; initialised only where those are at hand ([[Launch.inRepository]]).
   */
  lazy val Jobs: Seq[LabCommand] = Seq(RunCommand, DemoCommand, AccuracyCommand, FaultsCommand, BenchCommand,
    ClusterFaultsCommand)

  /** The jobs' names, known without loading them (the jar names them in its answer to one). */
  val JobNames: Seq[String] = Seq("run", "demo", "accuracy", "faults", "bench", "cluster-faults")

  def commands: Seq[LabCommand] = if Launch.inRepository then Tool ++ Jobs else Tool

  def usage: String =
    val width = (Tool ++ (if Launch.inRepository then Jobs else Nil)).map(_.name.length).max
    def lines(cs: Seq[LabCommand]) = cs.map(c => s"  ${c.name.padTo(width, ' ')}  ${c.summary}").mkString("\n")
    val jobs =
      if Launch.inRepository then s"\n\nthe repository's jobs:\n${lines(Jobs)}\n\nbench suites: ${BenchSuite.All.map(_.name).mkString(", ")}"
      else s"\n\nin a clone of the repository, ./bulkhead lab also runs its jobs: ${JobNames.mkString(", ")}"
    s"""usage: bulkhead lab <command> [options]   (<command> --help for its options; --version)
       |
       |${lines(Tool)}$jobs""".stripMargin

  /** The release this lab is, written into `version.properties` by Maven from the parent pom. */
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
      case name :: rest => commands.find(_.name == name) match
        case Some(command) => command.main(rest)
        case None if JobNames.contains(name) =>
          System.err.println(s"bulkhead lab: '$name' is a job of the bulkhead repository (it starts bulkhead's own " +
            s"service and peers): in a clone, ./bulkhead lab $name")
          2
        case None =>
          System.err.println(s"bulkhead lab: unknown command '$name'\n$usage")
          2
    Children.stopAll()
    sys.exit(code)
