package bulkhead.lab.load

import java.nio.file.{Files, Path}

/**
 * vegeta (github.com/tsenart/vegeta, MIT), the open-loop generator, wherever the machine has one: on the PATH first,
 * else the one named by `-Dbulkhead.vegeta`, else the repository's (`./bulkhead test` builds it into
 * `target/tools/bin/` as part of the repository's set-up). The lab never installs or builds it: without one it says
 * how to get it.
 */
object Vegeta:
  val Module = "github.com/tsenart/vegeta/v12"
  val Version = "v12.13.0"

  /** How to get vegeta, said when there is none. */
  val HowToGet: String = s"vegeta is not on the PATH: install it (brew install vegeta; or the release binary of " +
    s"$Version from github.com/tsenart/vegeta/releases; or go install $Module@$Version) and put it on the PATH"

  /** The repository's root: the launcher's `bulkhead.root`, else the nearest directory up that holds `mvnw`. */
  private def root: Option[Path] =
    sys.props.get("bulkhead.root").map(Path.of(_)).orElse {
      Iterator.iterate(Path.of("").toAbsolutePath)(_.getParent).takeWhile(_ != null)
        .find(d => Files.exists(d.resolve("mvnw")))
    }

  /** Where the repository's set-up puts the vegeta it builds: git-ignored, beside the build's output. */
  def toolsBin: Option[Path] = root.map(_.resolve("target/tools/bin"))

  /** The binary, or how to get one: `path` is the PATH searched, `repository` where the repository keeps its own. */
  def binary(path: String = sys.env.getOrElse("PATH", ""), repository: Option[Path] = toolsBin): Either[String, Path] =
    val candidates = OnPath.find("vegeta", path).toSeq ++ sys.props.get("bulkhead.vegeta").map(Path.of(_)) ++
      repository.map(_.resolve("vegeta"))
    candidates.find(Files.isExecutable).toRight(HowToGet)
