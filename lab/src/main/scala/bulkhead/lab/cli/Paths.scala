package bulkhead.lab.cli

import java.nio.file.Path
import java.time.LocalDateTime
import java.time.format.DateTimeFormatter

/**
 * Where the lab reads and writes. Results go under `./results/` of the directory the lab was started from (the
 * caller's, as every path on the command line), one directory per run named by date and title, unless `--out` says
 * where. The repository's own files (its scenarios, its benchmark suites) are read from its root, which the launcher
 * names; docs/results/ holds only the curated runs the docs cite, copied there by hand.
 */
object Paths:
  /** The repository's root: the launcher's `bulkhead.root`, else the working directory. */
  def root: Path = Path.of(sys.props.getOrElse("bulkhead.root", "."))

  def results(title: String): Path =
    val stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd-HHmm"))
    Path.of("results").resolve(s"$stamp-${title.toLowerCase.replaceAll("[^a-z0-9]+", "-").stripSuffix("-")}")
