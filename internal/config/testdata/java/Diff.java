import java.time.*; import java.nio.file.*; import java.util.*; import java.math.BigInteger; import java.io.*;
import static java.nio.charset.StandardCharsets.UTF_8;
public class Diff {
  static String hex(String s) { return HexFormat.of().formatHex(s.getBytes(UTF_8)); }
  static boolean lone(String s) {
    for (int i = 0; i < s.length(); i++) { char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) { if (i+1 < s.length() && Character.isLowSurrogate(s.charAt(i+1))) { i++; continue; } return true; }
      if (Character.isLowSurrogate(c)) return true; }
    return false;
  }
  public static void main(String[] a) throws Exception {
    PrintStream out = new PrintStream(new FileOutputStream(a[2]), false, "UTF-8");
    for (String line : Files.readAllLines(Path.of(a[1]))) {
      String s = new String(HexFormat.of().parseHex(line), UTF_8);
      String r;
      if (a[0].equals("dur")) {
        try { Duration d = Duration.parse(s);
          r = BigInteger.valueOf(d.getSeconds()).multiply(BigInteger.valueOf(1000000000)).add(BigInteger.valueOf(d.getNano())).toString();
        } catch (Exception e) { r = "ERR"; }
      } else {
        try { final boolean[] surr = {false};
          Properties p = new Properties() {
            @Override public synchronized Object put(Object k, Object v) {
              if (lone((String) k) || lone((String) v)) surr[0] = true;
              return super.put(k, v);
            }
          };
          p.load(new StringReader(s));
          TreeMap<String,String> m = new TreeMap<>(); for (String k : p.stringPropertyNames()) m.put(k, p.getProperty(k));
          StringBuilder sb = new StringBuilder("OK");
          for (Map.Entry<String,String> e : m.entrySet()) { sb.append(' ').append(hex(e.getKey())).append('=').append(hex(e.getValue())); }
          r = surr[0] ? "SURR" : sb.toString();
        } catch (IllegalArgumentException e) { r = "ERR"; }
      }
      out.println(line + "\t" + r);
    }
    out.close();
  }
}
