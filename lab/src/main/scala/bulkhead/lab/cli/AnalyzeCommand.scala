package bulkhead.lab.cli

import bulkhead.lab.report.ThreadTable
import scopt.OParser

/** `lab analyze DUMPFILE`: a thread dump read per pool, with waits, lock owners and deadlocks (what TDA showed). */
object AnalyzeCommand extends LabCommand:
  val name = "analyze"
  val summary = "a thread dump file read per pool: states, where busy threads stand, lock owners, deadlocks"

  private val parser =
    val b = OParser.builder[String]
    import b.*
    OParser.sequence(programName("bulkhead lab analyze"), head(summary),
      arg[String]("DUMPFILE").text("jcmd <pid> Thread.print -l > dump.txt").action((f, _) => f),
      help("help").text("print this help"))

  def main(args: Seq[String]): Int = LabCommand.parse(parser, args, "") { file =>
    val path = java.nio.file.Path.of(file)
    if !java.nio.file.Files.isRegularFile(path) then
      System.err.println(s"bulkhead lab analyze: no such file: $file")
      2
    else
      println(ThreadTable.analysis(bulkhead.lab.sample.ThreadDump.parse(java.nio.file.Files.readString(path))))
      0
  }
