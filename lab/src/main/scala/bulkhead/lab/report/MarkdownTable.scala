package bulkhead.lab.report

/** A Markdown table from a header and rows; a `|` inside a cell is written as `/` so it cannot break the table. */
object MarkdownTable:
  def apply(header: Seq[String], rows: Seq[Seq[String]]): String =
    (Seq(header, header.map(_ => "---")) ++ rows).map(_.map(_.replace("|", "/")).mkString("| ", " | ", " |"))
      .mkString("\n")
