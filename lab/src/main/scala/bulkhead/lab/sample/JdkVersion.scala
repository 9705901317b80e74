package bulkhead.lab.sample

/**
 * A JDK's version as its update releases number it: feature, interim, update and patch (`25.0.3`, a vendor's
 * `25.0.5.1`), read from what the JVM says of itself (`jcmd <pid> VM.version`'s `JDK 25.0.3` line, or the
 * `java.version` / VM version string over JMX: `25.0.3+9-LTS`). Ordered as releases are.
 */
final case class JdkVersion(feature: Int, interim: Int = 0, update: Int = 0, patch: Int = 0):
  private def parts = Seq(feature, interim, update, patch)
  def >=(other: JdkVersion): Boolean =
    parts.zip(other.parts).find(_ != _).forall((a, b) => a > b)
  def <(other: JdkVersion): Boolean = !(this >= other)
  override def toString: String =
    if patch > 0 then s"$feature.$interim.$update.$patch" else s"$feature.$interim.$update"

object JdkVersion:
  private val Numbers = """^(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?""".r
  /** `JDK 25.0.3` in `jcmd VM.version`'s answer (its first line is the pid). */
  private val JdkLine = """(?m)^JDK (\d[\w.+-]*)""".r

  /** `25.0.3+9-LTS`, `21.0.5`, `17`, `25.0.5.1`; None when it does not start with a feature number. */
  def parse(text: String): Option[JdkVersion] =
    Numbers.findFirstMatchIn(text.trim).map { m =>
      def at(i: Int) = Option(m.group(i)).fold(0)(_.toInt)
      JdkVersion(at(1), at(2), at(3), at(4))
    }

  /** The JDK's version in `jcmd <pid> VM.version`'s answer. */
  def ofVmVersion(output: String): Option[JdkVersion] =
    JdkLine.findFirstMatchIn(output).flatMap(m => parse(m.group(1)))
