package bulkhead.lab.load

import java.io.File
import java.nio.file.{Files, Path}

/** A program on the PATH, found as the shell would find it: the first executable of that name. */
object OnPath:
  def find(name: String, path: String = sys.env.getOrElse("PATH", "")): Option[Path] =
    path.split(File.pathSeparator).iterator.filter(_.nonEmpty)
      .map(d => Path.of(d).resolve(name)).find(p => Files.isRegularFile(p) && Files.isExecutable(p))
