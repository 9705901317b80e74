package bulkhead.lab.record

/**
 * What came of one request of the lab's own client: an answer with its status, or why none came. `label` is how a
 * fault record writes it: the status code (`200`), or `error:<why>` (`error:timeout`).
 */
enum RequestOutcome(val label: String):
  /** An answer, with its HTTP status. */
  case Status(code: Int) extends RequestOutcome(code.toString)
  /** No answer within the client's read timeout. */
  case Timeout extends RequestOutcome("error:timeout")
  /** The server closed the connection without an answer. */
  case Closed extends RequestOutcome("error:closed")
  /** The connection failed otherwise (reset) before an answer. */
  case Reset extends RequestOutcome("error:reset")
  /** No connection could be opened. */
  case Connect extends RequestOutcome("error:connect")
  /** The client closed the connection itself, when its load stopped. */
  case Abandoned extends RequestOutcome("error:abandoned")

  def status: Option[Int] = this match
    case Status(code) => Some(code)
    case _ => None

  def answered: Boolean = status.isDefined
  /** A 2xx answer. */
  def ok: Boolean = status.exists(_ / 100 == 2)
  /** In a word, for reports: the status, or why no answer came (`timeout`). */
  def word: String = label.stripPrefix(RequestOutcome.NoAnswerPrefix)

object RequestOutcome:
  private val NoAnswerPrefix = "error:"
  private val NoAnswer: Seq[RequestOutcome] = Seq(Timeout, Closed, Reset, Connect, Abandoned)

  /** Reads a `label` back (a recorded fault run), or says why not. */
  def parse(label: String): Either[String, RequestOutcome] =
    label.toIntOption.filter(c => c >= 100 && c <= 599).map(Status(_))
      .orElse(NoAnswer.find(_.label == label))
      .toRight(s"not a request outcome: '$label' (a status 100..599, or ${NoAnswer.map(_.label).mkString(", ")})")

  /** Outcomes in the order their labels sort, as reports and records list them. */
  given Ordering[RequestOutcome] = Ordering.by(_.label)
