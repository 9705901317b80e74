package bulkhead.packagegraph

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*
import scala.util.Using

/**
 * The main source files with logic that no test names: a file has logic when one of its `def`s has a body, and a test
 * names it when a test file is named `<Type>Spec` for one of its top-level types or mentions one of them (in code,
 * a test's name or its scaladoc). Read from source text, as [[PackageGraph]] is.
 */
object UnnamedFiles:
  private val TopLevelType =
    """(?m)^(?:(?:final|sealed|abstract|open|case|private(?:\[\w+\])?)\s+)*(?:class|object|trait|enum)\s+(\w+)""".r
  private val Word = """\w+""".r
  private val DefWithBody = """(?m)\bdef\b[^\n]*[^=<>!]=(?:\s|$)""".r

  /** The files under `main` (relative, sorted) that have logic and that no test under `test` names. */
  def of(main: Path, test: Path): Seq[String] =
    val tests = scalaFiles(test)
    val words = tests.flatMap(f => Word.findAllIn(Files.readString(f))).toSet
    val specs = tests.map(_.getFileName.toString.stripSuffix(".scala")).toSet
    scalaFiles(main).filter { f =>
      val code = PackageGraph.codeOnly(Files.readString(f))
      val types = TopLevelType.findAllMatchIn(code).map(_.group(1)).toSeq.distinct
      DefWithBody.findFirstIn(code).isDefined && types.nonEmpty &&
        !types.exists(t => specs(t + "Spec") || words(t))
    }.map(f => main.relativize(f).toString).sorted

  private def scalaFiles(dir: Path): Seq[Path] =
    if !Files.isDirectory(dir) then Nil
    else Using.resource(Files.walk(dir))(_.iterator().asScala.filter(_.toString.endsWith(".scala")).toList)
