package bulkhead.lab.cli

import bulkhead.lab.report.SuiteReport

import java.nio.file.Path

/**
 * A faults run's checks on the terminal, read from its written report: what `lab faults`, `lab cluster-faults` and
 * `lab report` of such a run print.
 */
object FaultChecksPrint:
  /**
   * Prints the fault matrix, the ramp's table and the verdict of a written report; 0 when every check passed and
   * nothing failed to run, else 1.
   */
  def apply(report: SuiteReport, file: Path, failures: Seq[String]): Int =
    val faults = report.faults
    val passed = failures.isEmpty && !faults.checks.isEmpty && faults.passed
    println()
    if faults.matrixRows.nonEmpty then println(faults.matrix + "\n")
    if faults.checks.ramps.nonEmpty then println(faults.rampTables + "\n")
    if faults.checks.undersized.nonEmpty then println(faults.undersizedTable + "\n")
    faults.checks.runs.filter(_.record.fault.exists(_.nodeKill.isDefined)).foreach { run =>
      println(s"${run.record.info.name}:")
      run.checks.foreach(c => println(s"- ${c.markdown}"))
    }
    failures.foreach(f => println(s"did not run: $f"))
    println(s"\n${if passed then "every check passed" else "SOME CHECKS FAILED"}; report: $file and " +
      s"${file.resolveSibling(SuiteReport.HtmlFile)}")
    if passed then 0 else 1
