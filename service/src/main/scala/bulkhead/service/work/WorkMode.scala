package bulkhead.service.work

/** Where `/work/{mode}` spends its milliseconds. */
enum WorkMode(val key: String):
  /** Blocks a default-dispatcher thread: the anti-pattern the original experiments measured, kept on purpose. */
  case Default extends WorkMode("default")
  /** Blocks a thread of the dedicated blocking pool. */
  case Pool extends WorkMode("pool")
  /** Blocks a virtual thread (JDK 21+). */
  case Virtual extends WorkMode("virtual")
  /** Waits on a timer and blocks nothing. */
  case Async extends WorkMode("async")

object WorkMode:
  def parse(s: String): Either[String, WorkMode] =
    values.find(_.key == s).toRight(s"unknown work mode '$s', expected one of ${values.map(_.key).mkString(", ")}")

  /** `ms` of a request: absent means the default; present, it must be a whole number (range checked by the runner). */
  def parseMillis(raw: Option[String], default: Int): Either[String, Int] = raw match
    case None => Right(default)
    case Some(s) =>
      val digits = s.stripPrefix("-")
      // Plain decimal digits only: no sign games ("+1"), no exponents, no hex.
      Option.when(digits.nonEmpty && digits.length <= 9 && digits.forall(c => c >= '0' && c <= '9'))(s.toInt)
        .toRight(s"ms must be a whole number of milliseconds, was '${s.take(40)}'")
