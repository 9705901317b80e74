package bulkhead.lab.load

import java.nio.file.{Files, Path}
import scala.collection.immutable.ArraySeq

/**
 * A targets file in vegeta's HTTP format (github.com/tsenart/vegeta, "HTTP format"), read as vegeta reads it: each
 * target a line `METHOD URL`, then its headers one `Name: value` a line, then optionally `@FILE` (its body, which ends
 * the target); targets are separated by a blank line or start at the next `METHOD URL` line. Lines starting with `#`
 * are comments. Headers given on the command line (`--header`) are added to every target, as vegeta's `-header` is;
 * a body file's relative path is read from the working directory, as vegeta does. Every line is checked and every
 * body read here, so a bad file is refused, naming its line, before anything starts.
 */
object TargetsFile:
  private val RequestLine = "^([A-Z]+)\\s+(\\S+)$".r
  private val StartsWithMethod = "^[A-Z]+\\s.*".r

  def read(file: Path, headers: Seq[(String, String)] = Nil, insecure: Boolean = false): Either[String, Requests] =
    if !Files.isRegularFile(file) then Left(s"no such targets file: $file")
    else
      scala.util.Try(Files.readString(file)).toEither.left.map(e => s"cannot read the targets file $file: ${e.getMessage}")
        .flatMap(text => parse(text, headers).left.map(e => s"targets file $file: $e"))
        .map(Requests(_, insecure))

  /** The targets of a file's text, each with `headers` added; or the first bad line, by its number. */
  def parse(text: String, headers: Seq[(String, String)] = Nil): Either[String, Seq[Request]] =
    val lines = text.linesIterator.zipWithIndex.map((l, i) => (i + 1, l.trim)).filterNot(_._2.startsWith("#")).toList

    /** A target's headers and body: lines until a blank one, an @FILE (which ends it) or the next request line. */
    @annotation.tailrec
    def rest(ls: List[(Int, String)], own: Vector[(String, String)]): Either[String, (Seq[(String, String)],
        ArraySeq[Byte], List[(Int, String)])] = ls match
      case (n, l) :: more if l.startsWith("@") =>
        Request.file(l.drop(1)).left.map(e => s"line $n: $e").map(b => (own, b, more))
      case (n, l) :: more if l.nonEmpty && !StartsWithMethod.matches(l) => Request.header(l) match
        case Left(e) => Left(s"line $n: $e")
        case Right(h) => rest(more, own :+ h)
      case _ => Right((own, ArraySeq.empty, ls))

    @annotation.tailrec
    def targets(ls: List[(Int, String)], out: Vector[Request]): Either[String, Vector[Request]] = ls match
      case Nil => Right(out)
      case (_, "") :: more => targets(more, out)
      case (n, RequestLine(method, url)) :: more =>
        val read = Request.url(url).left.map(e => s"line $n: $e").flatMap(uri =>
          rest(more, Vector.empty).map((own, body, next) => (Request(method, uri, headers ++ own, body), next)))
        read match
          case Left(e) => Left(e)
          case Right((r, next)) => targets(next, out :+ r)
      case (n, line) :: _ =>
        Left(s"line $n: a target starts with 'METHOD URL' (like 'GET http://host:8080/path'), was '$line'")

    targets(lines, Vector.empty).filterOrElse(_.nonEmpty, "no target in it (a target is a line 'METHOD URL')")

  /** `requests` in vegeta's format, bodies as files under `dir` (vegeta reads a body from a file). */
  def write(requests: Requests, dir: Path): String =
    requests.targets.zipWithIndex.map { (r, i) =>
      val body = Option.when(r.body.nonEmpty) {
        val f = dir.resolve(s"body-${i + 1}")
        Files.write(f, r.body.toArray)
        s"@${f.toAbsolutePath}\n"
      }
      s"${r.method} ${r.url}\n" + r.headers.map((k, v) => s"$k: $v\n").mkString + body.getOrElse("")
    }.mkString("\n")
