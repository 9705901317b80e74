package bulkhead.lab.testkit

import java.nio.file.{Files, Path}
import java.util.concurrent.TimeUnit
import scala.jdk.CollectionConverters.*

/**
 * Debian's chromium, headless: a page as a person's browser shows it, after its scripts ran (the DOM, a screenshot).
 * Each call uses a fresh profile, so runs never share state; as root chromium needs `--no-sandbox`.
 */
object Chromium:
  val Missing = "install chromium (apt-get install chromium)"

  def binary: Option[String] =
    val path = sys.env.getOrElse("PATH", "").split(':').toSeq
    Seq("chromium", "chromium-browser").flatMap(b => path.map(d => Path.of(d, b))).find(Files.isExecutable)
      .map(_.toString)

  private def root: Boolean = System.getProperty("user.name") == "root"

  /** The page's DOM once its scripts ran (`--virtual-time-budget` lets timers and layout settle). */
  def dom(page: Path): Either[String, String] =
    run(Seq("--virtual-time-budget=5000", "--dump-dom", page.toUri.toString))

  /** A PNG of the page at `width` x `height` CSS pixels. */
  def screenshot(page: Path, png: Path, width: Int, height: Int): Either[String, Path] =
    Files.createDirectories(png.toAbsolutePath.getParent)
    Files.deleteIfExists(png)
    run(Seq("--virtual-time-budget=5000", "--hide-scrollbars", s"--window-size=$width,$height",
      s"--screenshot=${png.toAbsolutePath}", page.toUri.toString)).map(_ => png)

  private def run(args: Seq[String]): Either[String, String] =
    binary.toRight(Missing).flatMap { chromium =>
      val profile = Scratch.dir("bulkhead-chromium")
      val stdout = Scratch.file("chromium", ".out")
      val stderr = Scratch.file("chromium", ".err")
      val command = Seq(chromium, "--headless", "--disable-gpu", "--no-first-run", "--disable-extensions",
        s"--user-data-dir=$profile") ++ (if root then Seq("--no-sandbox") else Nil) ++ args
      val process = ProcessBuilder(command.asJava).redirectOutput(stdout.toFile).redirectError(stderr.toFile).start()
      try
        if !process.waitFor(90, TimeUnit.SECONDS) then Left(s"chromium ran past 90 s: ${command.mkString(" ")}")
        else if process.exitValue() != 0 then
          Left(s"chromium exited ${process.exitValue()}: ${Files.readString(stderr).takeRight(2000)}")
        else Right(Files.readString(stdout))
      finally
        if process.isAlive then
          process.destroyForcibly()
          process.waitFor(10, TimeUnit.SECONDS)
        Seq(stdout, stderr, profile).foreach(Scratch.delete)
    }
