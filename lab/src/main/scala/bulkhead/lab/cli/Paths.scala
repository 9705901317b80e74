package bulkhead.lab.cli

import java.nio.file.Path
import java.time.LocalDateTime
import java.time.format.DateTimeFormatter

/**
 * Where the lab writes: under the repository's results/ (git-ignored), one directory per run, named by date and title.
 * docs/results/ holds only the curated runs the docs cite, copied there by hand.
 */
object Paths:
  def root: Path = Path.of(sys.props.getOrElse("bulkhead.root", "."))

  def results(title: String): Path =
    val stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd-HHmm"))
    root.resolve("results").resolve(s"$stamp-${title.toLowerCase.replaceAll("[^a-z0-9]+", "-").stripSuffix("-")}")
