package bulkhead.lab.cli

import bulkhead.lab.sample.JmxAddress
import scopt.{OParser, OParserBuilder}

import java.nio.file.Path
import scala.concurrent.duration.*

/** Flags several lab commands take, read one way: a duration, and the JVM reached through its JMX agent. */
object CommonFlags:
  /** `20s`, `500ms`, `2m` or a bare number of seconds, above zero and at most an hour. */
  def duration(v: String): Option[FiniteDuration] =
    scala.util.Try(Duration(v.replaceAll("^(\\d+)$", "$1 s").replaceAll("(\\d)(ms|s|m)$", "$1 $2"))).toOption
      .collect { case d: FiniteDuration if d > Duration.Zero && d <= 1.hour => d }

  /** `--jmx HOST:PORT` and `--jmx-credentials FILE` for a command whose options are `O`. */
  def jmx[O](b: OParserBuilder[O])(address: (O, JmxAddress) => O, credentials: (O, Path) => O): OParser[?, O] =
    import b.*
    OParser.sequence(
      opt[String]("jmx").valueName("<host:port>").text("or the JVM to sample through its JMX agent (docs/remote.md)")
        .validate(a => JmxAddress.parse(a).fold(e => failure(s"--jmx: $e"), _ => success))
        .action((a, o) => JmxAddress.parse(a).fold(_ => o, address(o, _))),
      opt[String]("jmx-credentials").valueName("<file>")
        .text("with --jmx: a file (mode 600) holding `user password` on one line, for an agent that authenticates")
        .action((f, o) => credentials(o, Path.of(f))))
