// ARX's risk models on a CSV, for bench/risk_peers.py (issue 17's side by
// side). Our driver, not ARX's code: it calls ARX's public API
// (DataHandle.getRiskEstimator) and prints one JSON object. Compiled and
// run by the script against an ARX build given by --arx-classpath; ARX is
// not on a package registry this project can reach, so it is never needed
// by the tests.
//
//   java -cp ARX:. RiskPeers FILE SEP QI1,QI2,... F1,F2,...
//
// Output: {"rows": n, "fractions": [{"f", "population_size",
// "prosecutor_mean", "prosecutor_max", "records_at_max", "sample_uniques",
// "pitman", "zayatz", "snb", "dankar", "dankar_model"}...],
// "attribute_risks": [{"attributes": [...], "distinction", "separation"}]}.
// ARX reports a population model without an estimate as 0 (its NaN).

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

import org.deidentifier.arx.ARXPopulationModel;
import org.deidentifier.arx.ARXSolverConfiguration;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.risk.RiskEstimateBuilder;
import org.deidentifier.arx.risk.RiskModelAttributes;
import org.deidentifier.arx.risk.RiskModelPopulationUniqueness;
import org.deidentifier.arx.risk.RiskModelSampleRisks;

public class RiskPeers {
    private static String num(double x) {
        return Double.isFinite(x) ? String.format(Locale.ROOT, "%.17g", x) : "null";
    }

    public static void main(String[] args) throws Exception {
        char sep = args[1].charAt(0);
        String[] qis = args[2].split(",");
        String[] fractions = args[3].split(",");
        Data data = Data.create(new File(args[0]), StandardCharsets.UTF_8, sep);
        for (String q : qis) {
            data.getDefinition().setAttributeType(q, AttributeType.QUASI_IDENTIFYING_ATTRIBUTE);
        }
        DataHandle h = data.getHandle();
        int n = h.getNumRows();
        StringBuilder out = new StringBuilder();
        out.append("{\"rows\": ").append(n).append(", \"fractions\": [");
        RiskEstimateBuilder last = null;
        for (int i = 0; i < fractions.length; i++) {
            double f = Double.parseDouble(fractions[i]);
            ARXPopulationModel model = ARXPopulationModel.create(n, f);
            long t = System.nanoTime();
            RiskEstimateBuilder b = h.getRiskEstimator(model, ARXSolverConfiguration.create());
            RiskModelSampleRisks s = b.getSampleBasedReidentificationRisk();
            double uniques = b.getSampleBasedUniquenessRisk().getFractionOfUniqueRecords();
            RiskModelPopulationUniqueness u = b.getPopulationBasedUniquenessRisk();
            double ms = (System.nanoTime() - t) / 1e6;
            last = b;
            if (i > 0) out.append(", ");
            out.append(String.format(Locale.ROOT,
                "{\"f\": %s, \"population_size\": %s, \"prosecutor_mean\": %s, \"prosecutor_max\": %s, "
                    + "\"records_at_max\": %s, \"sample_uniques\": %s, \"pitman\": %s, \"zayatz\": %s, "
                    + "\"snb\": %s, \"dankar\": %s, \"dankar_model\": \"%s\", \"ms\": %s}",
                num(f), num(model.getPopulationSize()), num(s.getAverageRisk()), num(s.getHighestRisk()),
                num(s.getNumRecordsAffectedByHighestRisk()), num(uniques),
                num(u.getFractionOfUniqueTuplesPitman()), num(u.getFractionOfUniqueTuplesZayatz()),
                num(u.getFractionOfUniqueTuplesSNB()), num(u.getFractionOfUniqueTuplesDankar()),
                u.getPopulationUniquenessModel(), num(ms)));
        }
        out.append("], \"attribute_risks\": [");
        long t = System.nanoTime();
        RiskModelAttributes.QuasiIdentifierRisk[] risks = last.getAttributeRisks().getAttributeRisks();
        double attrMs = (System.nanoTime() - t) / 1e6;
        for (int i = 0; i < risks.length; i++) {
            List<String> id = new ArrayList<>(risks[i].getIdentifier());
            Collections.sort(id);
            if (i > 0) out.append(", ");
            out.append("{\"attributes\": [");
            for (int j = 0; j < id.size(); j++) {
                if (j > 0) out.append(", ");
                out.append('"').append(id.get(j).replace("\"", "\\\"")).append('"');
            }
            out.append("], \"distinction\": ").append(num(risks[i].getDistinction()))
                .append(", \"separation\": ").append(num(risks[i].getSeparation())).append('}');
        }
        out.append("], \"attribute_risks_ms\": ").append(num(attrMs)).append('}');
        System.out.println(out);
    }
}
