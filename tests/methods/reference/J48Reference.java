// Trains Weka's J48 on a CSV file and prints the class probabilities of the test rows.
//
// Used by j48_weka.py (see there how to compile it against Weka's source).  Input CSV: no header,
// numeric feature columns, the last column an integer class code 0..K-1; K is given on the command
// line so that the class attribute has all K values.  Output: one line per test row, the K
// probabilities separated by spaces, after a line "LEAVES <number of leaves> SIZE <tree size>".
import java.io.BufferedReader;
import java.io.FileReader;
import java.util.ArrayList;
import java.util.List;

import weka.classifiers.trees.J48;
import weka.core.Attribute;
import weka.core.DenseInstance;
import weka.core.Instances;

public class J48Reference {

  static List<double[]> read(String path) throws Exception {
    List<double[]> rows = new ArrayList<>();
    try (BufferedReader in = new BufferedReader(new FileReader(path))) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isEmpty()) continue;
        String[] parts = line.split(",");
        double[] row = new double[parts.length];
        for (int i = 0; i < parts.length; i++) row[i] = Double.parseDouble(parts[i]);
        rows.add(row);
      }
    }
    return rows;
  }

  static Instances build(List<double[]> rows, int d, int k) {
    ArrayList<Attribute> atts = new ArrayList<>();
    for (int j = 0; j < d; j++) atts.add(new Attribute("x" + j));
    ArrayList<String> classes = new ArrayList<>();
    for (int c = 0; c < k; c++) classes.add("c" + c);
    atts.add(new Attribute("class", classes));
    Instances data = new Instances("data", atts, rows.size());
    data.setClassIndex(d);
    for (double[] r : rows) data.add(new DenseInstance(1.0, r));
    return data;
  }

  public static void main(String[] args) throws Exception {
    // args: train.csv test.csv K [J48 options...]
    List<double[]> train = read(args[0]);
    List<double[]> test = read(args[1]);
    int k = Integer.parseInt(args[2]);
    int d = train.get(0).length - 1;
    String[] options = new String[args.length - 3];
    System.arraycopy(args, 3, options, 0, options.length);
    J48 tree = new J48();
    tree.setOptions(options);
    Instances tr = build(train, d, k);
    tree.buildClassifier(tr);
    System.out.println("LEAVES " + (int) tree.measureNumLeaves() + " SIZE " + (int) tree.measureTreeSize());
    Instances te = build(test, d, k);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < te.numInstances(); i++) {
      double[] p = tree.distributionForInstance(te.instance(i));
      for (int c = 0; c < p.length; c++) {
        if (c > 0) out.append(' ');
        out.append(Double.toString(p[c]));
      }
      out.append('\n');
    }
    System.out.print(out);
    System.err.println(tree.toString());
  }
}
