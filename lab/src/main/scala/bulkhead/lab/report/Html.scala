package bulkhead.lab.report

/** HTML text for the report: escaping, and tables from a header and rows (every cell is text, escaped). */
object Html:
  def escape(s: String): String =
    s.flatMap {
      case '&' => "&amp;"
      case '<' => "&lt;"
      case '>' => "&gt;"
      case '"' => "&quot;"
      case '\'' => "&#39;"
      case c => c.toString
    }

  def table(header: Seq[String], rows: Seq[Seq[String]], cls: String = ""): String =
    val head = header.map(h => s"<th>${escape(h)}</th>").mkString("<thead><tr>", "", "</tr></thead>")
    val body = rows.map(_.map(c => s"<td>${escape(c)}</td>").mkString("<tr>", "", "</tr>"))
      .mkString("<tbody>", "\n", "</tbody>")
    val attr = if cls.isEmpty then "" else s""" class="${escape(cls)}""""
    s"<table$attr>$head\n$body</table>"

  /** An id from a free name (`pool-4@akka-http` -> `pool-4-akka-http`). */
  def id(name: String): String = name.replaceAll("[^A-Za-z0-9_-]", "-")
