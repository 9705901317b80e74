package bulkhead.lab.cli

import bulkhead.lab.load.{Request, Requests, TargetsFile}

import java.nio.file.Path

/**
 * `--method`, `--header`, `--body`, `--insecure` and `--targets` as given ([[CommonFlags.requests]] declares them):
 * with `--url`, the requests the load sends.
 */
final case class RequestFlags(method: Option[String] = None, headers: Seq[String] = Nil, body: Option[String] = None,
    insecure: Boolean = false, targets: Option[Path] = None):
  /** Any of them given: a load of the user's own requests, not a GET of `--url`. */
  def any: Boolean = method.isDefined || headers.nonEmpty || body.isDefined || insecure || targets.isDefined

  /** The requests of `url` (or of the targets file), every file read now; or the first bad value, named. */
  def requests(url: String): Either[String, Requests] = targets match
    case Some(file) =>
      if url.nonEmpty then Left("--targets and --url exclude each other (a targets file names its URLs)")
      else if method.isDefined || body.isDefined then
        Left("--method and --body go with --url; a targets file gives each target's own")
      else
        Requests.sequence(headers.map(Request.header)).left.map(e => s"--header: $e")
          .flatMap(hs => TargetsFile.read(file, hs, insecure).left.map(e => s"--targets: $e"))
    case None => Requests.of(url, method, headers, body, insecure)
