package bulkhead.lab.checks

/** One assertion of a fault run, with the figures behind it. */
final case class Check(name: String, passed: Boolean, detail: String):
  /** `pass name: detail`, `**FAIL** name: detail` in Markdown. */
  def markdown: String = s"${if passed then "pass" else "**FAIL**"} $name: $detail"
