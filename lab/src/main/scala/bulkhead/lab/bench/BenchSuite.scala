package bulkhead.lab.bench

import bulkhead.lab.scenario.{Load, Scenario}

import java.nio.file.{Files, Path}
import scala.concurrent.duration.FiniteDuration

/**
 * A benchmark suite: scenario files in `lab/scenarios/bench/<name>/`, one per case, each naming the servers it runs
 * on (`targets`). `reference` names the case every other one is compared with (the A/B suite's defaults); a case
 * may name its own instead (its scenario's `compare-with`).
 */
final case class BenchSuite(name: String, summary: String, reference: Option[String] = None):
  def directory(root: Path): Path = root.resolve("lab/scenarios/bench").resolve(name)

  /** The suite's cases, in file-name order; a file that does not read is refused with its error. */
  def cases(root: Path): Either[String, Seq[Scenario]] =
    val dir = directory(root)
    if !Files.isDirectory(dir) then Left(s"no scenario directory for bench $name: $dir")
    else Scenario.files(Seq(dir.toString)).flatMap { files =>
      val read = files.map(Scenario.load(_))
      read.collectFirst { case Left(e) => e }.toLeft(read.collect { case Right(s) => s }).flatMap { cases =>
        val names = cases.map(_.name).toSet
        cases.collectFirst { case c if c.compareWith.exists(!names(_)) =>
          s"${c.source}: compare-with names ${c.compareWith.get}, which is no case of bench $name " +
            s"(${names.toSeq.sorted.mkString(", ")})"
        }.toLeft(cases)
      }
    }

object BenchSuite:
  val All: Seq[BenchSuite] = Seq(
    BenchSuite("work", "/work/pool on pools of 200 and 1000, /work/async, /work/virtual at c=1000, /hello at c=100"),
    BenchSuite("enrichment", "/customers at 40 clients per SOAP mode, 200 and 2,000 clients non-blocking (stub 1 s)"),
    BenchSuite("hello", "/hello at c=100 and c=1000: bulkhead, minimal Pekko HTTP, Akka HTTP 10.2, Spray, nginx"),
    BenchSuite("connections", "seed 001's wrk -t6 -c10000 on 1 s of /work/async, the service on a 400 MB heap"),
    BenchSuite("ab", "bulkhead's /hello with each of its costs switched off alone, then all, beside minimal Pekko HTTP",
      reference = Some("defaults")),
    BenchSuite("cluster", "/customers, blocking SOAP client (25 threads per node, stub 1 s), 100 clients on 1, 2, 3 nodes"),
    BenchSuite("sampler", "the lab's own cost: /hello at c=100, 2,000 held threads and 2,000 virtual threads, " +
      "sampling off, every 5 s, every 1 s"),
    BenchSuite("pause", "how long a sample stops the service: 200, 2,000 and 10,000 threads held 1 s each, sampled every 1 s"))

  def named(name: String): Option[BenchSuite] = All.find(_.name == name)

  /** The suite a recorded case came from: the directory of its scenario file. */
  def of(source: String): Option[BenchSuite] =
    Option(Path.of(source).getParent).map(_.getFileName.toString).flatMap(named)

  /**
   * A case with the command line's choices: the measured length (a ramp's hold), the warm-up and, for the A/B suite at
   * another concurrency, the connections.
   */
  def adjust(s: Scenario, duration: Option[FiniteDuration], warmup: Option[FiniteDuration],
      connections: Option[Int], threads: Option[Int] = None): Scenario =
    val load = s.load match
      case w: Load.Wrk =>
        val c = connections.getOrElse(w.connections)
        // wrk needs a connection per thread at least.
        w.copy(duration = duration.getOrElse(w.duration), connections = c, threads = threads.getOrElse(w.threads).min(c))
      case r: Load.Ramp => r.copy(hold = duration.getOrElse(r.hold), clients = connections.getOrElse(r.clients))
      case o: Load.Open =>
        o.copy(duration = duration.getOrElse(o.duration), connections = connections.getOrElse(o.connections))
    s.copy(load = load, warmup = warmup.getOrElse(s.warmup))
