package bulkhead.lab.load

import java.net.URI

/**
 * What a load sends: one request or several (a targets file's routes), and whether a server's certificate is taken
 * without checking it (`insecure`: a self-signed certificate on a test host). A closed loop gives each route an equal
 * share of its clients (each client keeps to one route); vegeta's open loop sends to the routes in turn, so each gets
 * an equal share of the rate. Either way the figures count the answers of each route ([[bulkhead.lab.model.RouteFigures]]).
 */
final case class Requests(targets: Seq[Request], insecure: Boolean = false):
  require(targets.nonEmpty, "a load needs at least one request")
  def first: Request = targets.head
  /** Every route goes to one `scheme://host:port` (wrk connects to one). */
  def oneOrigin: Boolean = targets.map(_.origin).distinct.size == 1
  /** The routes as reports name them: `POST /orders`, or the whole URL when they go to several hosts. */
  def routes: Seq[String] = targets.map(route).distinct
  def route(r: Request): String = r.route(withOrigin = !oneOrigin)
  /** One GET of one URL, no headers, no body: what `--url` alone asks for. */
  def plainGet: Boolean = targets.size == 1 && first.plainGet
  def https: Boolean = targets.exists(_.https)

  def describe: String =
    val each = targets.map(r => s"${r.method} ${r.url}" + (if r.headers.isEmpty then "" else
      s" (${r.headers.map(_._1).mkString(", ")})") + (if r.body.isEmpty then "" else s", ${Request.describeBody(r.body)}"))
    (if targets.size == 1 then each.head else s"${targets.size} routes: ${each.mkString("; ")}") +
      (if insecure then ", certificates unchecked" else "")

object Requests:
  /** A GET of `url`: every scenario's load. */
  def get(url: String): Requests = Requests(Seq(Request("GET", URI.create(url))))

  /**
   * The user's one request from flags: `--url`, `--method` (GET unless given), `--header`s (`Name: value`), `--body
   * @FILE`, `--insecure`. Each value is checked here, before anything starts.
   */
  def of(url: String, method: Option[String], headers: Seq[String], body: Option[String],
      insecure: Boolean): Either[String, Requests] =
    for
      u <- Request.url(url)
      m <- method.fold(Right(if body.isDefined then "POST" else "GET"))(Request.method)
      hs <- sequence(headers.map(Request.header))
      b <- body.fold(Right(scala.collection.immutable.ArraySeq.empty[Byte]))(Request.body)
    yield Requests(Seq(Request(m, u, hs, b)), insecure)

  /** The values, or the first error among them. */
  def sequence[A](xs: Seq[Either[String, A]]): Either[String, Seq[A]] =
    xs.collectFirst { case Left(e) => e }.toLeft(xs.collect { case Right(a) => a })
