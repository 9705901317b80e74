package bulkhead.lab.process

import java.nio.file.{Files, Path, StandardCopyOption}
import java.security.MessageDigest
import java.util.UUID
import java.util.concurrent.ConcurrentHashMap
import scala.jdk.CollectionConverters.*

/**
 * Class-data archives (HotSpot's dynamic AppCDS) for the JVMs the lab starts, one per classpath in a directory: the
 * second JVM of a classpath writes the classes it loaded to an archive as it exits, and the JVMs started after it map
 * them instead of loading, verifying and linking them again (the service's start here: 4.3 s without, 2.5 s with;
 * writing the archive lengthens its writer's stop by about 3.5 s, so a classpath started once is not archived). An
 * archive is named for what its JVM loads (the java, every classpath entry's path, size and time), so a rebuilt jar or
 * another JDK gets a new one. HotSpot refuses to archive from a directory: a classpath with one, and a JVM started
 * while its classpath's writer still runs, start as they would anyway. The lab's tests use this; its commands do not
 * (a user's run holds its JVMs as they ship).
 */
object ClassData:
  /** The archives whose classpath started a JVM in this process: the next JVM of one writes it. */
  private val seen = ConcurrentHashMap.newKeySet[Path]()
  /** The archives being written now, by a JVM still running: one writer per archive. */
  private val writing = ConcurrentHashMap.newKeySet[Path]()

  /** What a JVM of one classpath does with its archive: its options, and what to do once it exited (with its code). */
  final case class Use(options: Seq[String], exited: Int => Unit)

  /** No archive: the JVM starts as it would without the lab's archives. */
  val Plain: Use = Use(Nil, _ => ())

  /**
   * The archive in `dir` of the JVM `command` (the java executable) with `classpath`: mapped if it exists, else written
   * by this JVM when one started before it and none is being written; none for a classpath HotSpot cannot archive, nor
   * for the first JVM of a classpath (most classpaths start once or twice in a run). `exited` gives a written
   * archive its name when the JVM was stopped (a JVM killed may have written part of it, and one that refused to start
   * loaded little).
   */
  def use(dir: Path, command: String, classpath: String): Use =
    val entries = classpath.split(java.io.File.pathSeparatorChar).filter(_.nonEmpty).map(Path.of(_)).toSeq
    if entries.isEmpty || !entries.forall(Files.isRegularFile(_)) then Plain
    else
      val archive = dir.resolve(s"${name(command, entries)}.jsa")
      // HotSpot's notes on the JDK's own archive made with other module options than the lab's JVMs: not their log.
      val quiet = "-Xlog:cds*=off"
      if Files.isRegularFile(archive) then Use(Seq(s"-XX:SharedArchiveFile=$archive", quiet), Plain.exited)
      else if seen.add(archive) || !writing.add(archive) then Plain
      else
        Files.createDirectories(dir)
        val partial = dir.resolve(s"${archive.getFileName}.${UUID.randomUUID}.part")
        Use(Seq(s"-XX:ArchiveClassesAtExit=$partial", quiet), code =>
          try
            if Stopped(code) && Files.isRegularFile(partial) && Files.size(partial) > 0 then
              Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE)
          finally
            Files.deleteIfExists(partial)
            writing.remove(archive))

  /**
   * Deletes from `dir` every archive but those of the JVM `command` with `classpaths` as they are now (a rebuild names
   * new ones: the old ones would pile up, tens of MB each), and what a JVM left half written.
   */
  def prune(dir: Path, command: String, classpaths: Seq[String]): Unit =
    val keep = classpaths.map(_.split(java.io.File.pathSeparatorChar).filter(_.nonEmpty).map(Path.of(_)).toSeq)
      .filter(entries => entries.nonEmpty && entries.forall(Files.isRegularFile(_)))
      .map(entries => s"${name(command, entries)}.jsa").toSet
    if Files.isDirectory(dir) then
      val files = Files.list(dir)
      try files.iterator().asScala.filterNot(f => keep(f.getFileName.toString)).foreach(Files.deleteIfExists)
      finally files.close()

  /** A JVM's exit codes once stopped by SIGTERM: 0 when it handles it (the service), else 128 + 15. */
  private val Stopped = Set(0, 143)

  /** A name for what the JVM `command` loads from `entries`: another java, or any entry rebuilt, gives another. */
  def name(command: String, entries: Seq[Path]): String =
    val digest = MessageDigest.getInstance("SHA-256")
    val java = Path.of(command)
    val stamp = if Files.exists(java) then Files.getLastModifiedTime(java).toMillis else 0L
    (s"$command:$stamp" +: entries.map(e =>
      s"${e.toAbsolutePath}:${Files.size(e)}:${Files.getLastModifiedTime(e).toMillis}"))
      .foreach(s => digest.update(s"$s\n".getBytes("UTF-8")))
    digest.digest().take(12).map(b => f"$b%02x").mkString
