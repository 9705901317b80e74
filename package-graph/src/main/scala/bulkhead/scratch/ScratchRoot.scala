package bulkhead.scratch

import java.nio.file.attribute.PosixFilePermissions
import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*
import scala.util.Try

/**
 * A test JVM's temporary files and directories, all under one directory named `prefix`, the JVM's PID and a number,
 * deleted with everything in it when the JVM exits (after `atExit`, which stops what the tests started): a run of a
 * suite, passed or failed, leaves nothing in the system's temporary directory. The roots of test JVMs killed before
 * their hook ran are deleted by the next one that makes its root. `permissions` (e.g. `rwx--x--x`) where processes of
 * other users work under it. A test module's `Scratch` object extends it.
 */
class ScratchRoot(prefix: String, atExit: () => Unit = () => (), permissions: Option[String] = None):
  private lazy val root: Path =
    val dir = Files.createTempDirectory(s"$prefix${ProcessHandle.current().pid()}-")
    permissions.foreach(p => Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString(p)))
    Runtime.getRuntime.addShutdownHook(Thread(() => { atExit(); ScratchRoot.delete(dir) }, s"${prefix}scratch"))
    sweepDead(dir.getParent)
    dir

  /** A new empty directory named `name` and a number. */
  def dir(name: String): Path = Files.createTempDirectory(root, name)

  /** A new empty file named `name`, a number and `suffix`. */
  def file(name: String, suffix: String): Path = Files.createTempFile(root, name, suffix)

  /** Deletes `path` and everything under it, as far as it can: a file a process still writes may stay. */
  def delete(path: Path): Unit = ScratchRoot.delete(path)

  /** The roots of test JVMs that were killed before their hook ran (named by their PID, no longer alive). */
  private def sweepDead(tmp: Path): Unit = Try {
    val listed = Files.list(tmp)
    try
      listed.iterator().asScala.filter(p => Files.isDirectory(p) && p.getFileName.toString.startsWith(prefix))
        .filter(p => p.getFileName.toString.stripPrefix(prefix).takeWhile(_ != '-').toLongOption
          .exists(pid => ProcessHandle.of(pid).isEmpty))
        .foreach(ScratchRoot.delete)
    finally listed.close()
  }

object ScratchRoot:
  /** Deletes `path` and everything under it, as far as it can: a file a process still writes may stay. */
  def delete(path: Path): Unit =
    // A second pass takes what a process that was stopping wrote during the first.
    Iterator.range(0, 2).takeWhile(_ => Files.exists(path)).foreach { _ =>
      Try {
        val all = Files.walk(path)
        try all.iterator().asScala.toSeq.reverse.foreach(p => Try(Files.deleteIfExists(p)))
        finally all.close()
      }
    }
