package bulkhead.service.testkit

import java.io.IOException
import java.util.concurrent.TimeUnit

/** Prometheus' own checker (Debian's `prometheus` package), run on text given on its standard input. */
object Promtool:
  final case class Result(exitCode: Int, output: Seq[String])

  /** Runs `promtool <args>` with `input` on stdin; output is stdout and stderr, line by line, without blank lines. */
  def run(args: Seq[String], input: String = ""): Result =
    val process =
      try ProcessBuilder(("promtool" +: args)*).redirectErrorStream(true).start()
      catch
        case e: IOException =>
          throw IllegalStateException("install prometheus (apt-get install prometheus) for promtool", e)
    val out = process.getOutputStream
    out.write(input.getBytes("UTF-8"))
    out.close()
    val output = String(process.getInputStream.readAllBytes(), "UTF-8")
    if !process.waitFor(60, TimeUnit.SECONDS) then
      process.destroyForcibly()
      throw IllegalStateException(s"promtool ${args.mkString(" ")} did not finish in 60 s")
    Result(process.exitValue(), output.linesIterator.filter(_.trim.nonEmpty).toSeq)
