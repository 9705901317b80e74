package bulkhead.lab.cli

import java.nio.file.Path
import java.time.LocalDateTime
import java.time.format.DateTimeFormatter

/** Where the lab writes: under the repository's docs/results/, one directory per run, named by date and title. */
object Paths:
  def root: Path = Path.of(sys.props.getOrElse("bulkhead.root", "."))

  def results(title: String): Path =
    val stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd-HHmm"))
    root.resolve("docs/results").resolve(s"$stamp-${title.toLowerCase.replaceAll("[^a-z0-9]+", "-").stripSuffix("-")}")
