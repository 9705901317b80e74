package bulkhead.lab.load

import bulkhead.lab.process.Children

import java.nio.file.{Files, Path}
import scala.concurrent.duration.*

/**
 * vegeta (github.com/tsenart/vegeta, MIT), the open-loop generator: the binary the launcher built into
 * `target/tools/bin/` (`-Dbulkhead.vegeta`), else one built there now with `go install` from the Go module proxy, once.
 * No OS package ships a vegeta of this version; Go does build it here, in about a minute the first time.
 */
object Vegeta:
  val Module = "github.com/tsenart/vegeta/v12"
  val Version = "v12.13.0"

  /** The repository's root: the launcher's `bulkhead.root`, else the nearest directory up that holds `mvnw`. */
  private def root: Path =
    sys.props.get("bulkhead.root").map(Path.of(_)).getOrElse {
      Iterator.iterate(Path.of("").toAbsolutePath)(_.getParent).takeWhile(_ != null)
        .find(d => Files.exists(d.resolve("mvnw"))).getOrElse(Path.of("").toAbsolutePath)
    }

  /** Where the lab keeps the tools it builds: git-ignored, beside the build's output. */
  def toolsBin: Path = root.resolve("target/tools/bin")

  /** The binary, built first when it is missing; or why there is none. */
  def binary(say: String => Unit = msg => System.err.println(msg)): Either[String, Path] =
    sys.props.get("bulkhead.vegeta").map(Path.of(_)).filter(Files.isExecutable) match
      case Some(built) => Right(built)
      case None =>
        val bin = toolsBin.resolve("vegeta")
        if Files.isExecutable(bin) then Right(bin) else synchronized(build(bin, say))

  private def build(bin: Path, say: String => Unit): Either[String, Path] =
    if Files.isExecutable(bin) then Right(bin)
    else
      say(s"bulkhead: building vegeta $Version (the open-loop load generator) with go install into ${bin.getParent}; " +
        "once, about a minute")
      Files.createDirectories(bin.getParent)
      val command = Seq("env", s"GOBIN=${bin.getParent}", "go", "install", s"$Module@$Version")
      Children.runToCompletion(command, 10.minutes) match
        case Left(e) if e.contains("No such file") || e.contains("go: not found") || e.contains("'go'") =>
          Left(s"vegeta is missing and Go is not installed to build it: install Go 1.22+ (https://go.dev/dl or the " +
            s"OS's golang package), or put vegeta $Version at $bin")
        case Left(e) => Left(s"building vegeta failed (go install $Module@$Version): ${e.take(2000)}")
        case Right(_) => Either.cond(Files.isExecutable(bin), bin, s"go install gave no vegeta at $bin")
