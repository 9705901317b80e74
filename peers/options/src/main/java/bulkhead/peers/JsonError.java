package bulkhead.peers;

/** The body of a pool peer's error answer, `{"error": ..., "detail": ...}`, as bulkhead answers its own. */
public final class JsonError {
  private JsonError() {}

  public static String body(String error, String detail) {
    return "{\"error\": \"" + escape(error) + "\", \"detail\": \"" + escape(detail) + "\"}";
  }

  /** A JSON string's content: quotes and backslashes escaped, control characters as \\u escapes. */
  static String escape(String s) {
    StringBuilder b = new StringBuilder();
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.toString();
  }
}
