package bulkhead.lab.sample

import java.nio.file.{Files, Path, StandardCopyOption}
import scala.util.Try

/**
 * async-profiler in a JVM the lab measures: CPU samples of every thread (Java frames with the native and kernel ones
 * below them) from `start` to `stop`, written as a flame graph (`flame.html`, self-contained) and as collapsed stacks
 * (`collapsed.txt`, one line per stack with its samples, for reading stage by stage). The native agent comes from
 * Maven Central's `tools.profiler:async-profiler` jar, on the lab's classpath, and is loaded through the attach
 * mechanism (jcmd's `JVMTI.agent_load`), as async-profiler's own `asprof` loads it: no restart, no flag on the server.
 */
object AsyncProfiler:
  /** The flame graph of a profiled run, beside its result.json. */
  val FlameGraph = "flame.html"

  /** The same samples as collapsed stacks: `frame;frame;frame count` per line. */
  val Collapsed = "collapsed.txt"

  /**
   * One sample per millisecond of CPU a thread uses: 2,000 a second on 2 busy cores, a few per cent of a core for the
   * profiler; a 30 s run gets ~60,000 samples, enough for a stage of 0.5 % to show.
   */
  val IntervalNanos: Long = 1_000_000L

  /** The agent for this machine, copied out of the jar once per lab JVM (the JVM loads it from a file). */
  lazy val library: Either[String, Path] =
    val platform = sys.props("os.arch") match
      case "amd64" | "x86_64" => Some("linux-x64")
      case "aarch64" => Some("linux-arm64")
      case _ => None
    for
      dir <- platform.filter(_ => sys.props("os.name") == "Linux")
        .toRight(s"async-profiler ships no agent for ${sys.props("os.name")} ${sys.props("os.arch")} here")
      in <- Option(getClass.getResourceAsStream(s"/$dir/libasyncProfiler.so"))
        .toRight("tools.profiler:async-profiler is not on the lab's classpath (./bulkhead build)")
      file <- Try {
        try
          val f = Files.createTempFile("bulkhead-async-profiler", ".so")
          f.toFile.deleteOnExit()
          Files.copy(in, f, StandardCopyOption.REPLACE_EXISTING)
          f
        finally in.close()
      }.toEither.left.map(e => s"could not write async-profiler's agent: ${e.getMessage}")
    yield file

  /** Starts sampling the CPU of every thread of `pid`. */
  def start(pid: Long): Either[String, Unit] = command(pid, s"start,event=cpu,interval=$IntervalNanos")

  /** Stops sampling `pid` and writes the flame graph and the collapsed stacks of what it sampled into `dir`. */
  def stop(pid: Long, dir: Path): Either[String, Seq[Path]] =
    val collapsed = dir.resolve(Collapsed).toAbsolutePath
    val flame = dir.resolve(FlameGraph).toAbsolutePath
    for
      _ <- command(pid, s"stop,collapsed,file=$collapsed")
      // After stop the samples stay until the next start: the second form is written from the same ones.
      _ <- command(pid, s"dump,flamegraph,title=${titleOf(dir)},file=$flame")
    yield Seq(flame, collapsed).filter(Files.isRegularFile(_))

  /** The flame graph's title: the run's directory names (case, server, round), without the characters jcmd splits. */
  private def titleOf(dir: Path): String =
    val parts = (0 until dir.getNameCount).map(i => dir.getName(i).toString).takeRight(3)
    parts.mkString("/").replaceAll("[^A-Za-z0-9_./-]", "_")

  private def command(pid: Long, options: String): Either[String, Unit] =
    library.flatMap { lib =>
      require(!lib.toString.exists(c => c == ' ' || c == ','), s"the agent's path has a space or comma: $lib")
      // Quoted: jcmd would read `event=cpu` as an argument of its own and give the agent the part before it.
      Attach.jcmd(pid, s"JVMTI.agent_load $lib \"$options\"").flatMap { out =>
        // HotSpot reports the agent's refusal in the command's output; success is a bare "return code: 0".
        if out.contains("return code: 0") || out.trim.isEmpty then Right(())
        else Left(s"async-profiler in $pid: ${out.trim.take(300)}")
      }
    }
