package bulkhead.packagegraph

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*
import scala.util.Using

/**
 * Which package of a module refers to which, read from source text: imports, qualified references such as
 * `bulkhead.service.x.Y`, and references to a subpackage relative to the file's own package (`internal.Y`). Comments
 * and string literals are left out, so a key like "bulkhead.service.port" or a scaladoc link is not a dependency.
 * Only the module's own packages count: those under its root (`bulkhead.service`, `bulkhead.lab`) that a file declares.
 */
final case class PackageGraph(edges: Map[String, Set[String]]):
  def packages: Set[String] = edges.keySet ++ edges.values.flatten

  /** One line per package and what it depends on, sorted: a failing check's clue. */
  def describe: String =
    edges.toSeq.sortBy(_._1).map((p, qs) => s"$p -> ${qs.toSeq.sorted.mkString(", ")}").mkString("\n")

  /**
   * Every edge that does not point to a lower layer, as `from -> to`: `layers` lists packages top first, and a package
   * may depend only on packages of the layers below its own (not on its own layer's, nor above). A package no layer
   * holds is [[unlayered]], not judged here.
   */
  def upward(layers: Seq[Seq[String]]): Seq[String] =
    val rank = layers.zipWithIndex.flatMap((ps, i) => ps.map(_ -> i)).toMap
    for
      (from, tos) <- edges.toSeq.sortBy(_._1)
      to <- tos.toSeq.sorted
      if rank.contains(from) && rank.contains(to) && rank(to) <= rank(from)
    yield s"$from -> $to"

  /** The packages of the graph that no layer holds: a new package needs its layer before its first file. */
  def unlayered(layers: Seq[Seq[String]]): Set[String] = packages -- layers.flatten

  /** Every group of two or more packages that reach each other (Tarjan's strongly connected components). */
  def cycles: Seq[Set[String]] =
    var index = 0
    val indices = collection.mutable.Map[String, Int]()
    val low = collection.mutable.Map[String, Int]()
    val stack = collection.mutable.Stack[String]()
    val found = collection.mutable.ListBuffer[Set[String]]()
    def visit(p: String): Unit =
      indices(p) = index
      low(p) = index
      index += 1
      stack.push(p)
      for q <- edges.getOrElse(p, Set.empty) do
        if !indices.contains(q) then
          visit(q)
          low(p) = low(p).min(low(q))
        else if stack.contains(q) then low(p) = low(p).min(indices(q))
      if low(p) == indices(p) then
        val component = Iterator.continually(stack.pop()).takeWhile(_ != p).toSet + p
        if component.size > 1 then found += component
    for p <- packages.toSeq.sorted if !indices.contains(p) do visit(p)
    found.toSeq

object PackageGraph:
  private val PackageClause = """(?m)^\s*package\s+([\w.]+)""".r

  /** A qualified name under `root`: the package is the run of lower-case segments before the first type or member. */
  private def qualifiedNames(root: String): scala.util.matching.Regex =
    s"""(?<![\\w.])${java.util.regex.Pattern.quote(root)}(?!\\w)((?:\\.[a-z]\\w*)*)""".r

  /** The graph of the Scala sources under `dir`, whose packages are `root` and those under it. */
  def read(dir: Path, root: String): PackageGraph =
    val files = Using.resource(Files.walk(dir))(_.iterator().asScala.filter(_.toString.endsWith(".scala")).toList)
    of(files.map(Files.readString), root)

  /** The graph of some source texts, one per file. */
  def of(sources: Seq[String], root: String): PackageGraph =
    val code = sources.map(codeOnly)
    val packageOf = code.map(c => PackageClause.findFirstMatchIn(c).map(_.group(1)).getOrElse(""))
    val known = packageOf.toSet.filter(p => p == root || p.startsWith(root + "."))
    val named = qualifiedNames(root)
    val edges = code.zip(packageOf).filter((_, p) => known(p)).map { (c, own) =>
      val qualified = named.findAllMatchIn(c).map(m => root + m.group(1)).filter(known).toSet
      val relative = known.filter(_.startsWith(own + ".")).filter { sub =>
        val rel = java.util.regex.Pattern.quote(sub.stripPrefix(own + "."))
        s"""(?<![\\w.])$rel\\.(?:[A-Z{*]|given\\b)""".r.findFirstIn(c).isDefined
      }
      own -> (qualified ++ relative - own)
    }
    PackageGraph(edges.groupMapReduce(_._1)(_._2)(_ ++ _))

  /** The source without comments and string or character literals (each replaced by a space). */
  def codeOnly(source: String): String =
    val out = StringBuilder()
    var i = 0
    def at(s: String) = source.startsWith(s, i)
    def skipPast(end: String): Unit =
      val j = source.indexOf(end, i)
      i = if j < 0 then source.length else j + end.length
      out += ' '
    while i < source.length do
      if at("//") then
        val j = source.indexOf('\n', i)
        i = if j < 0 then source.length else j
      else if at("/*") then skipPast("*/")
      else if at("\"\"\"") then
        i += 3
        skipPast("\"\"\"")
      else if at("\"") then
        i += 1
        while i < source.length && source(i) != '"' && source(i) != '\n' do i += (if source(i) == '\\' then 2 else 1)
        i += 1
        out += ' '
      else if source(i) == '\'' && i + 2 < source.length && (source(i + 2) == '\'' || source(i + 1) == '\\') then
        i = source.indexOf('\'', if source(i + 1) == '\\' then i + 3 else i + 2) + 1
        out += ' '
      else
        out += source(i)
        i += 1
    out.toString
