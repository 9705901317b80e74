package bulkhead.service.config

/** A secret read from a file or the environment: `toString` hides it, so no log line or error message prints it. */
final class Secret(value: String):
  def reveal: String = value
  override def toString: String = "***"

/** Hides secrets in text meant for people: URI credentials (`scheme://user:password@`) and known secret values. */
object Redaction:
  private val UriCredentials = """([A-Za-z][A-Za-z0-9+.-]*://)[^/@\s]*@""".r

  def apply(text: String, secrets: Seq[String] = Nil): String =
    secrets.filter(_.nonEmpty).foldLeft(UriCredentials.replaceAllIn(text, m =>
      scala.util.matching.Regex.quoteReplacement(m.group(1) + "***@")))((t, secret) => t.replace(secret, "***"))

  /** True when a URI carries credentials (Lettuce reads `redis://secret@host` as a password too). */
  def hasCredentials(uri: String): Boolean = UriCredentials.findFirstIn(uri).nonEmpty
