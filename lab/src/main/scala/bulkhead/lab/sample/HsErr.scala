package bulkhead.lab.sample

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*
import scala.util.Try

/**
 * HotSpot's fatal error log (`hs_err_pid<pid>.log`): where a JVM writes it (`-XX:ErrorFile`, in its command line or
 * `JAVA_TOOL_OPTIONS`, else its working directory, else its temporary directory), read while the JVM is alive, since
 * /proc forgets it after its death; and what it says: the fatal signal and the problematic frame.
 */
object HsErr:
  /** Where the JVM `pid` would write its error log, most likely first; read from /proc while it runs. */
  def candidates(pid: Long): Seq[Path] =
    val options = Seq(s"/proc/$pid/cmdline", s"/proc/$pid/environ").flatMap(f =>
      Try(String(Files.readAllBytes(Path.of(f))).split('\u0000').toSeq).getOrElse(Nil))
      .flatMap(_.split("\\s+")).filter(_.startsWith("-XX:ErrorFile="))
      .map(o => o.stripPrefix("-XX:ErrorFile=").replace("%p", pid.toString))
    val cwd = Try(Files.readSymbolicLink(Path.of(s"/proc/$pid/cwd"))).toOption
    val named = s"hs_err_pid$pid.log"
    (options.map(p => cwd.fold(Path.of(p))(_.resolve(p))) ++ cwd.map(_.resolve(named)) :+ Path.of("/tmp", named)).distinct

  /** The first of `candidates` that exists. */
  def find(candidates: Seq[Path]): Option[Path] = candidates.find(Files.isRegularFile(_))

  private val Signal = """^#\s+(SIG[A-Z]+) \(0x.*""".r
  private val Internal = """^#\s+(Internal Error|Out of Memory Error|fatal error|guarantee|assert)\b.*""".r

  /** The fatal error (`SIGSEGV`, `Internal Error ...`) and the problematic frame an hs_err log's header reports. */
  def read(text: String): (Option[String], Option[String]) =
    val lines = text.linesIterator.take(60).toSeq
    val fatal = lines.collectFirst {
      case Signal(s) => s
      case l @ Internal(_) => l.stripPrefix("#").trim.take(120)
    }
    val frame = lines.dropWhile(!_.startsWith("# Problematic frame:")).drop(1).headOption
      .map(_.stripPrefix("#").trim.replaceAll("\\s+", " ")).filter(_.nonEmpty)
    (fatal, frame)

  def readFile(p: Path): (Option[String], Option[String]) =
    Try(read(Files.lines(p).iterator().asScala.take(60).mkString("\n"))).getOrElse((None, None))
